package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/users"
)

// Server is Switchboard's HTTP service. Create it with [New], serve with
// [Server.Serve] (or mount [Server.Handler] yourself), stop with
// [Server.Shutdown]. It is safe for concurrent use.
type Server struct {
	store     Stores
	runner    Runner
	tools     Catalog
	opts      Options
	logger    *slog.Logger
	metrics   *observe.Metrics
	handler   http.Handler
	reqLimits gate.Limiter
	gate      *gate.Gate
	// offers are the MCP servers' prompts and resources as the gate
	// decides them (Options.Features); nil without them.
	offers  *gate.Offerings
	users   *users.Directory
	streams *streamSlots
	http    *http.Server

	// cimd caches client ID metadata documents; registerLimits bounds
	// client registrations per client IP.
	cimd           *cimdCache
	registerLimits *ipLimiter
	// closing is closed when shutdown begins; SSE streams watch it.
	closing   chan struct{}
	closeOnce sync.Once
}

// Defaults of [Options].
const (
	DefaultMaxBodyBytes    = 4 << 20
	DefaultUploadMaxBytes  = 10 << 20
	DefaultSSEWriteTimeout = 10 * time.Second
	DefaultKeepAlive       = 15 * time.Second
	DefaultBodyReadTimeout = 30 * time.Second
	DefaultMaxStreams      = 8
)

// New returns a Server that keeps its records in st (one store per route group), runs agent turns with
// runner and lists and calls the tools of catalog through g, the
// enforcement path of every tool call it makes or starts (tools API, chat
// completions, agent runs): permission, rate limit, approval policy,
// audit. Pass the gate the MCP gateway and the agent runtime use, so a
// user's limit is one across surfaces. All four are required: New panics
// on nil, a wiring mistake rather than bad input. opts is copied; nil
// means defaults.
func New(st Stores, runner Runner, catalog Catalog, g *gate.Gate, opts *Options) *Server {
	if !st.complete() || runner == nil || catalog == nil || g == nil {
		panic("server.New: every store group, runner, catalog and gate are required")
	}
	s := &Server{store: st, runner: runner, tools: catalog, gate: g, closing: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.Features != nil {
		s.offers = g.Offerings(o.Features)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SignIn != nil {
		si := *o.SignIn
		si.withDefaults()
		o.SignIn = &si
	}
	if o.UploadMaxBytes <= 0 {
		o.UploadMaxBytes = DefaultUploadMaxBytes
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.SSEWriteTimeout <= 0 {
		o.SSEWriteTimeout = DefaultSSEWriteTimeout
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.BodyReadTimeout <= 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.MaxStreams == 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	s.users = o.Users
	if s.users == nil {
		s.users = users.New(st.Users, &users.Options{Now: o.Now})
	}
	s.streams = newStreamSlots(o.MaxStreams)
	if o.Models == nil {
		o.Models = func() []string { return nil }
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.metrics = o.Metrics
	if s.metrics == nil {
		s.metrics = observe.NewMetrics()
	}
	l := o.Limits.withDefaults()
	s.reqLimits = o.RequestLimiter
	if s.reqLimits == nil {
		s.reqLimits = gate.NewBuckets(l.Requests, l.RequestBurst, o.Now)
	}
	fetch := o.ClientMetadata
	if fetch == nil {
		fetch = oauth.NewFetcher(nil)
	}
	s.cimd = newCIMDCache(fetch, o.Now)
	s.registerLimits = newIPLimiter(o.RegistrationsPerMinute, o.Now)
	s.handler = s.buildMux()
	s.http = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	s.http.RegisterOnShutdown(s.endStreams)
	return s
}

// Handler returns the server's root handler (every route, with its
// middleware), for tests and for mounting under another server. Streams
// served through it end at Shutdown only if Shutdown is called on s.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the server's metrics, for the app's hooks.
func (s *Server) Metrics() *observe.Metrics { return s.metrics }

// Serve accepts connections on ln until Shutdown; it returns nil after a
// shutdown and the accept error otherwise. It closes ln.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serving http on %s: %w", ln.Addr(), err)
}

// Shutdown stops accepting connections, ends open SSE streams with a final
// "shutdown" event (which cancels their runs), and waits for in-flight
// handlers to return, until ctx ends; then it closes the remaining
// connections and returns ctx's error. It is safe to call more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.endStreams() // also for streams served through Handler alone
	err := s.http.Shutdown(ctx)
	if err != nil {
		_ = s.http.Close() // the deadline passed: cut what is left
		return fmt.Errorf("shutting down http server: %w", err)
	}
	return nil
}

func (s *Server) endStreams() { s.closeOnce.Do(func() { close(s.closing) }) }

// handlerFunc is a route's handler: it writes a response or returns an
// error for [writeError].
type handlerFunc func(w http.ResponseWriter, r *http.Request) error
