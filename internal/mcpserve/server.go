package mcpserve

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ErrClosed reports that the [Server] was closed.
var ErrClosed = errors.New("mcp gateway closed")

// Server serves a [tools.Registry] as one MCP server, to any number of HTTP
// and stdio sessions at once.
//
// A Server owns one goroutine that keeps the served tools in step with the
// registry, plus the goroutines of its sessions; [Server.Close] stops and
// waits for all of them. A Server is safe for concurrent use.
type Server struct {
	reg  *tools.Registry
	gate *gate.Gate
	// offers is the gate's view of Options.Features; nil without them.
	offers *gate.Offerings
	opts   Options
	logger *slog.Logger
	mcp    *mcp.Server
	http   http.Handler
	owners sessionOwners
	// macs holds HMACs under Options.SessionKey for sessionMAC to reuse:
	// every request checks its session ID, and a fresh HMAC costs a key
	// schedule and three allocations.
	macs sync.Pool
	// shared is set when the session key was given: other replicas may
	// have created the sessions this one is asked to continue.
	shared bool
	// relay carries answers between replicas and keeps the guest
	// sessions recreate makes (relay.go).
	relay *relay

	ctx    context.Context //nolint:containedctx // the Server's lifetime; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the follow goroutine and running ServeStdio calls

	// mu guards closed and the Adds on wg (ServeStdio) and requests (HTTP),
	// so that no work starts after Close began waiting.
	mu       sync.Mutex
	closed   bool
	requests sync.WaitGroup // HTTP requests being served

	// served maps each tool name served to the JSON of its MCP description,
	// and unservable each tool left out to why, so each is reported once;
	// only New and then the follow goroutine touch them.
	served     map[string]string
	unservable map[string]string
}

// New returns a Server for the catalogue reg, already serving its current
// tools, whose calls go through g, the enforcement path shared with the
// other surfaces: the caller's permissions and holds (what tools/list
// shows and tools/call accepts), the per-user tool-call limit, the
// approval policy (asked of the client by elicitation) and the audit
// trail. reg and g are required: New panics on nil, a wiring mistake.
// opts may be nil. Call [Server.Close] to stop it.
func New(reg *tools.Registry, g *gate.Gate, opts *Options) *Server {
	if reg == nil || g == nil {
		panic("mcpserve.New: registry and gate are required")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	opts = nil // prevent reuse
	if o.Name == "" {
		o.Name = "switchboard"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ApprovalTimeout <= 0 {
		o.ApprovalTimeout = DefaultApprovalTimeout
	}
	switch {
	case o.SessionTimeout == 0:
		o.SessionTimeout = DefaultSessionTimeout
	case o.SessionTimeout < 0:
		o.SessionTimeout = 0 // never: expire is not started
	}
	shared := len(o.SessionKey) > 0
	if !shared {
		o.SessionKey = newSessionKey()
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Local.ID == "" && o.Local.Name == "" && o.Local.Permissions == nil {
		o.Local = gate.Local(gate.LocalUser)
	}
	s := &Server{reg: reg, gate: g, opts: o, logger: o.Logger, served: make(map[string]string), shared: shared}
	if o.Features != nil {
		s.offers = g.Offerings(o.Features)
	}
	s.relay = newRelay(o.Answers, o.Changes, shared, &s.owners, o.Logger)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Instructions: o.Instructions,
		Logger:       o.Logger,
		// See capabilities (features.go).
		Capabilities:       capabilities(o.Features != nil),
		InitializedHandler: s.initialized,
	})
	s.mcp.AddReceivingMiddleware(s.filterList, s.serveFeatures)
	s.http = s.newHTTPHandler()

	// Take the channel before the first read, so that a change between
	// this sync and the goroutine's start is not missed.
	changed := reg.Changed()
	s.sync()
	s.wg.Add(1)
	go s.follow(changed)
	if o.SessionTimeout > 0 {
		s.wg.Add(1)
		go s.expire()
	}
	if o.Features != nil {
		s.wg.Add(1)
		go s.followFeatures()
	}
	return s
}

// Close ends every session, stops following the registry and waits for the
// Server's goroutines. Calls in flight are cancelled. Close is idempotent
// and safe for concurrent use; it always returns nil.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	// Closing the sessions ends their calls and streams, which lets the
	// HTTP requests serving them return; a request admitted just before
	// Close may have created a session meanwhile, so close again after.
	s.closeSessions()
	s.requests.Wait()
	s.closeSessions()
	s.wg.Wait()
	return nil
}

func (s *Server) closeSessions() {
	for ss := range s.mcp.Sessions() {
		_ = ss.Close() // each session's error is its own client's concern
	}
}

// admit registers one HTTP request, unless the Server is closed.
func (s *Server) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.requests.Add(1)
	return true
}

// follow keeps the served tools in step with the registry until Close.
// changed is the registry's channel taken before the last sync.
func (s *Server) follow(changed <-chan struct{}) {
	defer s.wg.Done()
	for {
		select {
		case <-changed:
			changed = s.reg.Changed() // before reading, as Changed asks
			s.sync()
		case <-s.ctx.Done():
			return
		}
	}
}

type callerKey struct{}

// WithCaller returns a copy of ctx that carries caller. The HTTP layer
// calls it, after authenticating the request, on the request passed to
// [Server.Handler].
func WithCaller(ctx context.Context, caller Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerFrom returns the caller that ctx carries, and reports whether it
// carries one.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// callerOf returns the caller of a request handled in ctx: the one the HTTP
// layer set, or the anonymous Caller{} when it set none.
func callerOf(ctx context.Context) Caller {
	c, _ := CallerFrom(ctx)
	return c
}

// permitted reports whether caller may see and call e: the gate's
// permission check (globs, holds).
func (s *Server) permitted(ctx context.Context, caller Caller, e tools.Entry) bool {
	return s.gate.Visible(ctx, &caller, e)
}
