package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/server"
)

// ShutdownTimeout bounds a graceful stop of `switchboard serve`: open
// streams end, in-flight tool calls finish and their audit records complete.
const ShutdownTimeout = 15 * time.Second

// Serve runs the service on ln until ctx ends or one of its parts fails,
// then stops it in order (see [service]): open SSE streams end with a
// final event, in-flight requests finish (so their audit records
// complete), the MCP servers stop and queued audit records are committed;
// then the caller closes the app. Serve starts the MCP servers and
// OpenAPI services itself (at once when [App.Start] ran before) and owns
// ln. ready, when not nil, is called once the service accepts requests.
// opts may be nil.
func (a *App) Serve(ctx context.Context, ln net.Listener, ready func(addr string), opts *ServeOptions) error {
	defer ln.Close()
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	if o.Profiles != nil {
		defer o.Profiles.Close()
	}
	s, err := a.newService(ctx, ln)
	if err != nil {
		return err
	}
	s.profiles = o.Profiles
	return s.run(ctx, ready)
}

// ServeOptions are what `serve` may add to the service.
type ServeOptions struct {
	// Profiles, when set, is a loopback listener on which the service
	// also serves Go's profiles ([App.Profile]), as one of its parts;
	// Serve owns it.
	Profiles net.Listener
}

// limits maps the per-minute request limit (0 = unlimited) to the
// server's per-second token buckets, with a burst of a tenth of a minute's
// worth. The tool-call limit is the gate's (toolCallLimiter).
func limits(requests int) server.Limits {
	l := server.Limits{Requests: -1}
	if requests > 0 {
		l.Requests, l.RequestBurst = float64(requests)/60, max(1, requests/6)
	}
	return l
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// mcpWithCaller hands the authenticated user of the HTTP request to the
// gateway, with the permissions authentication read from the store (no
// lookup per call): the gate decides by what the user is, never by name.
// A request without a user is refused; the server authenticates /mcp, so
// that happens only when the wiring is wrong.
func mcpWithCaller(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := server.UserFrom(r.Context())
		if !ok {
			http.Error(w, "no authenticated user for /mcp", http.StatusUnauthorized)
			return
		}
		c := gate.Caller{ID: u.ID, Name: u.Name, Permissions: u.Permissions}
		if !u.Anonymous && c.Permissions == nil {
			c.Permissions = []string{} // a stored user is never unrestricted
		}
		h.ServeHTTP(w, r.WithContext(mcpserve.WithCaller(r.Context(), c)))
	})
}

// serversView is the server's view of the tool servers.
type serversView struct{ a *App }

func (v serversView) Status() []server.ServerStatus {
	var out []server.ServerStatus
	for _, s := range v.a.Servers() {
		out = append(out, server.ServerStatus{
			Name: s.Name, Kind: string(s.Kind), State: s.State, Tools: s.Tools, Error: s.LastError,
			Restarts: s.Restarts, Since: s.Since, Transport: s.Transport,
			NonProtocolLines: s.NonProtocolLines, Roots: s.Roots, RootsRequests: s.RootsRequests,
		})
	}
	return out
}

func (v serversView) Restart(ctx context.Context, name string) error {
	for _, s := range v.a.openapiServers() {
		if s.Name() == name {
			return s.Refresh(ctx)
		}
	}
	if _, ok := v.a.config().MCPServers[name]; !ok {
		return fmt.Errorf("server %q: %w", name, server.ErrNoServer)
	}
	return v.a.pool.Restart(name)
}

func (v serversView) Stderr(name string) ([]string, bool) {
	for _, s := range v.a.Servers() {
		if s.Name == name {
			return s.Stderr, true
		}
	}
	return nil, false
}
