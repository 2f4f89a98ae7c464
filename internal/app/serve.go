package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/users"
	"github.com/switchboard-mcp/switchboard/internal/version"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// ShutdownTimeout bounds a graceful stop of `switchboard serve`: open
// streams end, in-flight tool calls finish and their audit records complete.
const ShutdownTimeout = 15 * time.Second

// Serve runs the HTTP service on ln until ctx ends, then shuts it down
// gracefully: open SSE streams end with a final event, in-flight requests
// finish (so their audit records complete), then the caller closes the app.
// ready, when not nil, is called once the service accepts requests.
func (a *App) Serve(ctx context.Context, ln net.Listener, ready func(addr string)) error {
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	if err := recoverStore(ctx, st, a.logger); err != nil {
		return err
	}
	if err := seedAgents(ctx, st, a.config().Agents, true); err != nil {
		return err
	}
	if dir := a.outputDir(); dir != "" {
		if n, err := pruneOutputs(dir, time.Now()); err != nil {
			a.logger.Warn("pruning stored tool outputs", logKeyDir, dir, logKeyErr, err)
		} else if n > 0 {
			a.logger.Info("pruned stored tool outputs", logKeyCount, n, logKeyOlderThan, OutputRetention)
		}
	}
	rt, err := a.Runtime(ctx)
	if err != nil {
		return err
	}
	a.applyGC(a.cfg.Server)
	loopback := isLoopback(ln.Addr())
	existing, err := st.ListUsers(ctx)
	if err != nil {
		return fmt.Errorf("listing users: %w", err)
	}
	if len(existing) > 0 && !slices.ContainsFunc(existing, func(u store.User) bool { return u.IsAdmin() }) {
		a.logger.Warn("no user is an admin: agents and servers cannot be managed over the API; run `switchboard users set NAME --admin`",
			logKeyCount, len(existing))
	}
	if !loopback && len(existing) == 0 {
		return fmt.Errorf("refusing to serve on %s without users: anyone who can reach it could run tools; "+
			"create a user with `switchboard users add NAME`, or listen on 127.0.0.1", ln.Addr())
	}
	if sw, ok := st.(sweeper); ok {
		sctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { runSweeps(sctx, sw, a.replicas(), a.sweepInterval(), a.logger) })
		defer func() { cancel(); wg.Wait() }()
	}
	g, err := a.Gate(ctx)
	if err != nil {
		return err
	}
	// One view of the users for the HTTP API and the gateway: a user
	// created, changed or removed by any process applies to both at once.
	users := users.New(st, nil)
	a.users.Store(users)
	defer a.users.Store(nil)
	if feed, ok := st.(store.Changes); ok {
		// Another replica's user changes apply here at once, not at the
		// directory's next version check.
		wctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { watchUsers(wctx, feed, a.InvalidateUsers) })
		defer func() { cancel(); wg.Wait() }()
	}
	// The MCP servers and OpenAPI services admins added at run time join
	// the file's now, and again whenever any replica changes them.
	a.serving.Store(true)
	defer a.serving.Store(false)
	a.entries.apply(ctx, a.file.Load(), "start")
	if feed, ok := st.(store.Changes); ok {
		ectx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { a.entries.watch(ectx, feed) })
		defer func() { cancel(); wg.Wait() }()
	}
	gw, err := a.Gateway(ctx, GatewayOptions{AllowedOrigins: a.cfg.Server.AllowedOrigins})
	if err != nil {
		return err
	}
	defer gw.Close()

	// The configuration serve runs with is recorded for `config check`;
	// with a loader, edits of the file and SIGHUP apply new ones. The
	// watcher stops when Serve returns.
	if err := recordApplied(a.cfg.Data, digests(a.config()), runtimeNames(a.file.Load(), a.config())); err != nil {
		a.logger.Warn("recording the applied configuration for `config check`", logKeyErr, err)
	}
	if a.load != nil {
		fctx, stopFollow := context.WithCancel(ctx)
		var follow sync.WaitGroup
		follow.Go(func() { a.followConfig(fctx, a.load) })
		defer func() { stopFollow(); follow.Wait() }()
	}

	// Tools an admin accepts from another process are released here within
	// pinRecheckEvery; the watcher stops when Serve returns.
	wctx, stopWatch := context.WithCancel(ctx)
	var watch sync.WaitGroup
	watch.Go(func() { a.WatchPins(wctx) })
	defer func() { stopWatch(); watch.Wait() }()

	// The metrics exist while the service runs: one-shot commands build no
	// registry they would never serve.
	metrics := observe.NewMetrics()
	a.metrics.Store(metrics)
	defer a.metrics.Store(nil)
	var tracing *observe.Tracing
	if ep := a.cfg.Tracing.Endpoint; ep != "" {
		// OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: traces go to /v1/traces.
		if u, perr := url.Parse(ep); perr == nil && strings.Trim(u.Path, "/") == "" {
			u.Path = "/v1/traces"
			ep = u.String()
		}
		tracing, err = observe.NewTracing(ctx, ep, version.String())
		if err != nil {
			return fmt.Errorf("setting up tracing to %s: %w", ep, err)
		}
		a.tracing.Store(tracing)
		defer func() {
			a.tracing.Store(nil)
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := tracing.Shutdown(sctx); err != nil {
				a.logger.Warn("flushing traces", logKeyErr, err)
			}
		}()
	}
	hook := func(name string, up, restarted bool) {
		metrics.SetServerUp(name, up)
		if restarted {
			metrics.ObserveRestart(name)
		}
	}
	a.onStatus.Store(&hook)
	for _, s := range a.pool.Status() {
		hook(s.Name, s.State == "ready", false)
	}
	defer a.onStatus.Store(nil)

	// Replicas share the database: requests are counted there, so that N
	// replicas allow the limit, not N times it (the gate does the same for
	// tool calls). A reload replaces the limit (applyPolicies).
	sh := a.replicas()
	a.requests.set(a.config().RateLimits.RequestsPerMinute, func(n int) gate.Limiter { return requestLimiter(sh, n) })
	uploads, err := a.uploadDir()
	if err != nil {
		return err
	}
	srv := server.New(server.StoresOf(st), tracedRunner{Runtime: rt, app: a}, a.registry, g, &server.Options{
		Servers: serversView{a},
		Pins:    pinsView{a},
		Config:  a.entries,
		// Each user's own credentials for per-user upstreams.
		Connections:  a.UserConnections(),
		UpstreamAuth: userCreds{a: a},
		// The MCP servers' prompts and resources, for the chat: the
		// gateway's source, under the same gate.
		Features: poolFeatures{a.pool, &a.featureChanges},
		Models:   func() []string { return slices.Sorted(maps.Keys(a.config().Models)) },
		// A refused edit of the config file shows on /readyz and so in
		// the web UI, until an edit is applied.
		ConfigProblems: a.ConfigProblems,
		MCP:            mcpWithCaller(gw.Handler()),
		Web:            web.Handler(&web.Options{Version: version.String(), SignIn: signInLabel(a.cfg), Logger: a.logger.With(logKeyComponent, "web")}),
		// Sign-in through the organisation's OpenID provider, when
		// configured; its sessions are kept in the store every replica shares.
		SignIn: signInOf(a.cfg, st),
		// Anonymous access lasts while no user exists: the directory
		// checks on every anonymous request.
		AllowAnonymous:  loopback,
		Users:           users,
		PublicProbes:    a.cfg.Server.PublicProbes,
		BodyReadTimeout: a.cfg.Server.BodyReadTimeout,
		MaxStreams:      a.cfg.Server.MaxStreamsPerUser,
		UploadMaxBytes:  a.cfg.Uploads.UploadMaxBytes(),
		UploadDir:       uploads,
		AllowedOrigins:  a.cfg.Server.AllowedOrigins,
		// Switchboard is the OAuth authorization server of /mcp and the
		// REST API, beside API keys: tokens, codes and grants live in the
		// store, so every replica accepts and refuses the same ones. While
		// no user exists nobody can consent (anonymous access needs no
		// token); metadata is served only under a known public URL.
		OAuth:          st,
		OAuthIssuer:    st,
		PublicURL:      a.cfg.Server.PublicURL,
		RequestLimiter: &a.requests,
		// A turn goes on when its page is reloaded, and the page
		// re-attaches to it (on any replica).
		KeepRunsOnLeave: true,
		RunLog:          runLogOf(st),
		Changes:         changesOf(st),
		Metrics:         metrics,
		Tracing:         tracing,
		Logger:          a.logger.With(logKeyComponent, "server"),
	})
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	// The gateway's open MCP streams would hold Shutdown until its
	// deadline; closing it first ends them (calls in flight are cancelled
	// and recorded so).
	err = gw.Close()
	err = errors.Join(err, srv.Shutdown(sctx))
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
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
