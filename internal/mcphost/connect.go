package mcphost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/version"
)

// classicProtocolVersion is the newest version negotiated with the classic
// initialize handshake; used when new-style discovery fails.
const classicProtocolVersion = "2025-11-25"

// clientImpl is how Switchboard introduces itself to servers: with the
// version of this binary, so a server's logs name the build that called.
func clientImpl() *mcp.Implementation {
	return &mcp.Implementation{Name: "switchboard", Version: version.String()}
}

// dial makes one connect attempt, bounded by ConnectTimeout: spawn or dial,
// handshake, and, when that fails in a way that is not a timeout and no
// version is pinned, one more try with the classic initialize on a fresh
// transport (a new process for stdio), for servers that choke on
// server/discover instead of answering "method not found".
func (s *server) dial(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
	defer cancel()
	version := s.cfg.ProtocolVersion
	if version == "" && s.classic.Load() {
		version = classicProtocolVersion // discovery failed before; don't respawn twice each time
	}
	c, err := s.dialVersion(ctx, version)
	if err == nil || version != "" || ctx.Err() != nil || errors.Is(err, ErrNeedsLogin) || isSetupError(err) {
		return c, s.wrapTimeout(ctx, err)
	}
	s.log.Info("retrying with classic initialize", logKeyErr, err)
	c, err2 := s.dialVersion(ctx, classicProtocolVersion)
	if err2 != nil {
		return nil, s.wrapTimeout(ctx, fmt.Errorf("%w (retry with classic initialize: %w)", err, err2))
	}
	s.classic.Store(true)
	return c, nil
}

// errConnectTimeout marks a connect attempt that ran out of ConnectTimeout.
var errConnectTimeout = errors.New("no answer within the connect timeout")

func (s *server) wrapTimeout(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w (%v): %w", errConnectTimeout, s.opts.ConnectTimeout, err)
	}
	return err
}

// dialVersion connects with the given protocol version ("" = newest).
func (s *server) dialVersion(ctx context.Context, version string) (*conn, error) {
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	switch tr := s.cfg.transport(); tr {
	case TransportStdio:
		return s.dialStdio(ctx, so)
	case TransportHTTP, TransportSSE:
		return s.dialRemote(ctx, tr, so)
	case TransportAuto:
		c, err := s.dialRemote(ctx, TransportHTTP, so)
		if err == nil || ctx.Err() != nil || errors.Is(err, ErrNeedsLogin) {
			return c, err
		}
		// Servers from before 2025-03-26 answer the Streamable HTTP POST
		// with 4xx (404, 405) and speak only HTTP+SSE. An SSE attempt against
		// a server that has no SSE endpoint fails fast, so just try it.
		c, err2 := s.dialRemote(ctx, TransportSSE, so)
		if err2 != nil {
			return nil, fmt.Errorf("streamable http: %w; sse fallback: %w", err, err2)
		}
		s.log.Info("server speaks legacy sse", logKeyURL, redact.URL(s.cfg.URL))
		return c, nil
	default:
		return nil, setupError{fmt.Errorf("unknown transport %q (want stdio, http, sse or empty)", tr)}
	}
}

// setupError marks a configuration problem that retrying cannot fix.
type setupError struct{ err error }

func (e setupError) Error() string { return e.err.Error() }
func (e setupError) Unwrap() error { return e.err }

func isSetupError(err error) bool {
	var se setupError
	return errors.As(err, &se)
}

func (s *server) dialStdio(ctx context.Context, so *mcp.ClientSessionOptions) (*conn, error) {
	cmd, pg, err := stdioCommand(&s.cfg, s.stderr)
	if err != nil {
		return nil, err
	}
	p, err := stdio.Start(cmd, pg, stdio.Options{
		Terminate:  s.cfg.shutdownTimeout(),
		MaxMessage: s.opts.MaxMessageBytes,
		Noise:      s.noise,
		Buffers:    s.bufs,
		Log:        s.log,
	})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", s.cfg.Command, err)
	}
	cs, err := s.newClient().Connect(ctx, p, so)
	if err != nil {
		_ = p.Close() // the SDK closed it already when the handshake failed
		return nil, fmt.Errorf("starting %s: %w", s.cfg.Command, explainSandbox(&s.cfg, s.stderr.Lines(), p.HandshakeError(err)))
	}
	s.setPID(p.PID())
	return newConn(cs, TransportStdio, p), nil
}

func (s *server) dialRemote(ctx context.Context, tr Transport, so *mcp.ClientSessionOptions) (*conn, error) {
	if s.cfg.URL == "" {
		return nil, setupError{errors.New("no url configured for remote server")}
	}
	if u, err := url.Parse(s.cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, setupError{fmt.Errorf("server url %q is not an http(s) url", redact.URL(s.cfg.URL))}
	}
	if s.auth != nil && s.auth.initErr != nil {
		return nil, setupError{fmt.Errorf("configuring oauth: %w", s.auth.initErr)}
	}
	hc := &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: s.cfg.Headers}}
	// The SSE transport ties its event stream to the context given to
	// Connect, which here is the connect attempt's, cancelled when dial
	// returns. Give the stream the connection's own lifetime instead.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	var t mcp.Transport
	if tr == TransportSSE {
		t = &lifetimeTransport{Transport: &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}, ctx: life}
	} else {
		st := &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxRetries: 2}
		if h := s.oauthHandler(); h != nil {
			st.OAuthHandler = h
		}
		t = st
	}
	cs, err := s.newClient().Connect(ctx, t, so)
	if err != nil {
		endLife()
		if s.auth != nil && s.auth.needsLogin() {
			return nil, fmt.Errorf("connecting to %s: %w", redact.URL(s.cfg.URL), ErrNeedsLogin)
		}
		return nil, fmt.Errorf("connecting to %s over %s: %w", redact.URL(s.cfg.URL), tr, err)
	}
	c := newConn(cs, tr, nil)
	c.endLife = endLife
	return c, nil
}

// lifetimeTransport connects its Transport with ctx instead of the
// caller's context, for transports that keep using that context after
// Connect returns. It returns the inner Connection unwrapped, so the SDK
// still sees the optional interfaces it implements.
type lifetimeTransport struct {
	mcp.Transport
	ctx context.Context //nolint:containedctx // the connection's lifetime, by design
}

func (t *lifetimeTransport) Connect(context.Context) (mcp.Connection, error) {
	return t.Transport.Connect(t.ctx)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// newClient builds the SDK client for one connection, wiring notifications
// and server-initiated requests to this supervisor.
func (s *server) newClient() *mcp.Client {
	o := &mcp.ClientOptions{
		Logger:                     s.log,
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { s.notifyChanged() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.featuresChanged() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.featuresChanged() },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			s.progress(r.Params)
		},
	}
	if f := s.opts.OnResourceUpdated; f != nil {
		o.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			f(s.cfg.Name, r.Params.URI)
		}
	}
	// Roots are offered only when configured for this server: a server
	// that receives roots may replace the directories of its own
	// configuration with them (server-filesystem does).
	if len(s.cfg.Roots) > 0 {
		o.Capabilities.RootsV2 = &mcp.RootCapabilities{} //nolint:staticcheck // see below
	}
	// Sampling and roots are deprecated from 2026-07-28 on but still in
	// the deprecation window, and servers of older versions use them.
	if s.opts.Sampling != nil {
		o.CreateMessageHandler = s.sample //nolint:staticcheck // see above
	}
	if s.opts.Elicitation != nil {
		// Both modes: forms the user fills in, and URLs the user opens
		// (shown, never opened for them).
		o.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
		o.ElicitationHandler = s.elicit
	}
	if f := s.opts.OnElicitationComplete; f != nil {
		o.ElicitationCompleteHandler = func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			if r.Params != nil {
				f(s.cfg.Name, r.Params.ElicitationID)
			}
		}
	}
	c := mcp.NewClient(clientImpl(), o)
	if len(s.cfg.Roots) > 0 {
		roots := make([]*mcp.Root, 0, len(s.cfg.Roots)) //nolint:staticcheck // see above
		for _, r := range s.cfg.Roots {
			roots = append(roots, &mcp.Root{URI: rootURI(r), Name: filepath.Base(r)}) //nolint:staticcheck // see above
		}
		c.AddRoots(roots...) //nolint:staticcheck // see above
	}
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				s.rootsAsked.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return c
}

// rootURIs returns the URIs of the configured roots, as they are offered.
func rootURIs(roots []string) []string {
	if len(roots) == 0 {
		return nil
	}
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = rootURI(r)
	}
	return out
}

// rootURI turns a path into a file:// URI; URIs pass through.
func rootURI(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
