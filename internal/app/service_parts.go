package app

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// run runs the service until ctx ends or one of its parts fails, then
// stops every part, last started first. ready is called once it serves.
func (s *service) run(ctx context.Context, ready func(addr string)) error {
	a := s.app
	a.svc.Store(s)
	defer a.svc.Store(nil)
	// The http part closes the gateway; this closes it (again, which is
	// harmless) when the service stopped before that part started.
	defer s.gateway.Close()
	g := &group{parts: s.parts(), timeout: ShutdownTimeout, logger: a.logger}
	return g.run(ctx, func() {
		if ready != nil {
			ready(s.ln.Addr().String())
		}
	})
}

// parts lists the service's parts in the order they start; they stop in
// the reverse order, which docs/ARCHITECTURE.md ("Goroutine ownership")
// explains part by part:
//
//	http     stop accepting; end MCP sessions and SSE streams (their runs
//	         are cancelled); drain the requests in flight
//	pins     the pin recheck
//	config   the config file follower: no reload while stopping
//	entries  the runtime entries' watcher
//	users    the users feed watcher
//	sweep    the sweep of stopped replicas' work
//	mcp      the MCP servers' supervisors and children: calls still running end
//	profiles the profiles' server (serve --pprof), late so that a profile
//	         can watch the rest stop
//	tracing  flush the spans, those of the calls that just ended included
//	audit    commit the audit finishes still queued
//
// The store is closed after them all, by [App.Close].
func (s *service) parts() []part {
	a := s.app
	feed, _ := s.store.(store.Changes)
	watching := func(run func(ctx context.Context, feed store.Changes)) func(context.Context) error {
		if feed == nil {
			return nil
		}
		return func(ctx context.Context) error { run(ctx, feed); return nil }
	}
	ps := []part{
		{name: "audit", stop: func(ctx context.Context) error {
			// Listing commits what is queued first (store.AuditTrail).
			_, err := s.store.ListAudit(ctx, store.AuditFilter{Limit: 1})
			return err
		}},
		{name: "tracing", stop: s.stopTracing},
		{name: "profiles", run: s.serveProfiles()},
		{name: "mcp", start: s.startServers, stop: func(context.Context) error { return a.pool.Close() }},
		{name: "sweep", run: s.sweeps()},
		// Another replica's user changes apply here at once, not at the
		// directory's next version check.
		{name: "users", run: watching(func(ctx context.Context, feed store.Changes) { watchUsers(ctx, feed, s.users.Invalidate) })},
		// The MCP servers and OpenAPI services admins added at run time
		// join the file's now, and again whenever any replica changes them.
		{name: "entries", start: func(ctx context.Context) error {
			a.entries.apply(ctx, a.file.Load(), "start")
			return nil
		}, run: watching(a.entries.watch)},
		// The configuration serve runs with is recorded for `config
		// check`; with a loader, edits of the file and SIGHUP apply new
		// ones.
		{name: "config", start: func(context.Context) error {
			if err := recordApplied(a.cfg.Data, digests(a.config()), runtimeNames(a.file.Load(), a.config())); err != nil {
				a.logger.Warn("recording the applied configuration for `config check`", logKeyErr, err)
			}
			return nil
		}, run: s.following()},
		// Tools an admin accepts from another process are released here
		// within pinRecheckEvery.
		{name: "pins", run: func(ctx context.Context) error { a.WatchPins(ctx); return nil }},
		{name: "http", run: func(context.Context) error { return s.http.Serve(s.ln) }, stop: s.stopHTTP},
	}
	return ps
}

// serveProfiles is the profiles' goroutine, or nil without a listener.
func (s *service) serveProfiles() func(context.Context) error {
	if s.profiles == nil {
		return nil
	}
	return func(ctx context.Context) error { return s.app.Profile(ctx, s.profiles) }
}

// startServers starts the MCP servers and OpenAPI services (at once when
// they were started before Serve) and reports the servers not ready.
func (s *service) startServers(ctx context.Context) error {
	a := s.app
	if err := a.Start(ctx); err != nil {
		return err
	}
	for _, st := range a.pool.Status() {
		s.serverStatus(st)
	}
	for _, st := range a.Servers() {
		if st.State != "ready" && st.State != "disabled" {
			a.logger.Warn("tool server not ready", logKeyServer, st.Name, logKeyState, st.State, logKeyErr, st.LastError)
		}
	}
	return nil
}

// serverStatus counts an MCP server's state change in the metrics.
func (s *service) serverStatus(st mcphost.Status) {
	s.metrics.SetServerUp(st.Name, st.State == mcphost.StateReady)
	if st.State == mcphost.StateRestarting {
		s.metrics.ObserveRestart(st.Name)
	}
}

// sweeps is the sweep's goroutine, or nil for a store without one.
func (s *service) sweeps() func(context.Context) error {
	sw, ok := s.store.(sweeper)
	if !ok {
		return nil
	}
	a := s.app
	return func(ctx context.Context) error {
		runSweeps(ctx, sw, a.replicas(), a.sweepInterval(), a.logger)
		return nil
	}
}

// following is the config follower's goroutine, or nil without a loader.
func (s *service) following() func(context.Context) error {
	a := s.app
	if a.load == nil {
		return nil
	}
	return func(ctx context.Context) error { a.followConfig(ctx, a.load); return nil }
}

// stopHTTP stops accepting and drains. The gateway's open MCP streams
// would hold the drain until its deadline; closing the gateway first ends
// them (calls in flight are cancelled and recorded so).
func (s *service) stopHTTP(ctx context.Context) error {
	return errors.Join(s.gateway.Close(), s.http.Shutdown(ctx))
}

// stopTracing flushes the spans still buffered.
func (s *service) stopTracing(ctx context.Context) error {
	if s.tracing == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.tracing.Shutdown(ctx); err != nil {
		s.app.logger.Warn("flushing traces", logKeyErr, err)
	}
	return nil
}
