package app

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/users"
	"github.com/switchboard-mcp/switchboard/internal/version"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// service is what `serve` runs, built whole before anything starts: the
// parts that exist only while serving are plain fields, and every
// goroutine serve starts belongs to its group (see [service.parts] for the
// order). The App reaches the running service through App.svc (its
// tool, model and status hooks read the metrics and tracing here).
//
// A part that changes while the service runs (an MCP server, an agent, a
// model) is swapped by its owner (mcphost.Pool.Apply, the agent runtime's
// setters, App.Reload) under the service, which keeps running: the
// service owns the goroutines, not the set of servers, agents or models.
type service struct {
	app     *App
	store   store.Store
	metrics *observe.Metrics
	tracing *observe.Tracing // nil without an OTLP endpoint
	users   *users.Directory
	gateway *mcpserve.Server
	http    *server.Server
	ln      net.Listener
	// profiles, when set, serves Go's profiles (ServeOptions.Profiles).
	profiles net.Listener
}

// newService prepares the store for serving and builds the service on
// ln. It starts no goroutine but the gateway's and the tracer's, which
// the service stops (and newService, when it fails after building them).
func (a *App) newService(ctx context.Context, ln net.Listener) (*service, error) {
	st, rt, g, err := a.prepareServe(ctx, ln)
	if err != nil {
		return nil, err
	}
	// The uploads directory is checked before anything starts: a bad one
	// refuses to serve rather than serve without it.
	uploads, err := a.uploadDir()
	if err != nil {
		return nil, err
	}
	s := &service{app: a, store: st, ln: ln, metrics: observe.NewMetrics()}
	// One view of the users for the HTTP API and the gateway: a user
	// created, changed or removed by any process applies to both at once.
	s.users = users.New(st, nil)
	gw, err := a.Gateway(ctx, GatewayOptions{AllowedOrigins: a.cfg.Server.AllowedOrigins})
	if err != nil {
		return nil, err
	}
	s.gateway = gw
	if s.tracing, err = a.newTracing(ctx); err != nil {
		_ = gw.Close()
		return nil, err
	}
	s.http = a.httpServer(st, rt, g, s, uploads)
	return s, nil
}

// prepareServe does what only a serving process does to the store and
// the process before it serves: recovery, the file's agents, old tool
// outputs, the collector's settings, and the refusal to serve a
// non-loopback address without users.
func (a *App) prepareServe(ctx context.Context, ln net.Listener) (store.Store, *agent.Runtime, *gate.Gate, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := recoverStore(ctx, st, a.logger); err != nil {
		return nil, nil, nil, err
	}
	if err := seedAgents(ctx, st, a.config().Agents, true); err != nil {
		return nil, nil, nil, err
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
		return nil, nil, nil, err
	}
	a.applyGC(a.cfg.Server)
	existing, err := st.ListUsers(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing users: %w", err)
	}
	if len(existing) > 0 && !slices.ContainsFunc(existing, func(u store.User) bool { return u.IsAdmin() }) {
		a.logger.Warn("no user is an admin: agents and servers cannot be managed over the API; run `switchboard users set NAME --admin`",
			logKeyCount, len(existing))
	}
	if !isLoopback(ln.Addr()) && len(existing) == 0 {
		return nil, nil, nil, fmt.Errorf("refusing to serve on %s without users: anyone who can reach it could run tools; "+
			"create a user with `switchboard users add NAME`, or listen on 127.0.0.1", ln.Addr())
	}
	g, err := a.Gate(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, rt, g, nil
}

// newTracing returns the OTLP tracing of the configured endpoint, or nil.
func (a *App) newTracing(ctx context.Context) (*observe.Tracing, error) {
	ep := a.cfg.Tracing.Endpoint
	if ep == "" {
		return nil, nil
	}
	// OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: traces go to /v1/traces.
	if u, perr := url.Parse(ep); perr == nil && strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1/traces"
		ep = u.String()
	}
	tracing, err := observe.NewTracing(ctx, ep, version.String())
	if err != nil {
		return nil, fmt.Errorf("setting up tracing to %s: %w", ep, err)
	}
	return tracing, nil
}

// httpServer builds the HTTP API of s, with s's gateway on /mcp.
func (a *App) httpServer(st store.Store, rt *agent.Runtime, g *gate.Gate, s *service, uploads string) *server.Server {
	// Replicas share the database: requests are counted there, so that N
	// replicas allow the limit, not N times it (the gate does the same for
	// tool calls). A reload replaces the limit (applyPolicies).
	sh := a.replicas()
	a.requests.set(a.config().RateLimits.RequestsPerMinute, func(n int) gate.Limiter { return requestLimiter(sh, n) })
	return server.New(server.StoresOf(st), tracedRunner{Runtime: rt, app: a}, a.registry, g, &server.Options{
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
		MCP:            mcpWithCaller(s.gateway.Handler()),
		Web:            web.Handler(&web.Options{Version: version.String(), SignIn: signInLabel(a.cfg), Logger: a.logger.With(logKeyComponent, "web")}),
		// Sign-in through the organisation's OpenID provider, when
		// configured; its sessions are kept in the store every replica shares.
		SignIn: signInOf(a.cfg, st),
		// Anonymous access lasts while no user exists: the directory
		// checks on every anonymous request.
		AllowAnonymous:  isLoopback(s.ln.Addr()),
		Users:           s.users,
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
		Metrics:         s.metrics,
		Tracing:         s.tracing,
		Logger:          a.logger.With(logKeyComponent, "server"),
	})
}
