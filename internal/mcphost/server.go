package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// server is the supervisor of one configured MCP server. Its run goroutine
// owns the connection: it connects, serves (pings, list_changed), and on
// failure withdraws the tools, backs off and reconnects.
type server struct {
	cfg    ServerConfig
	opts   *Options // the pool's, with defaults applied; read-only
	log    *slog.Logger
	stderr *lineRing
	auth   *oauthState    // nil unless the server is remote
	bufs   *stdio.Buffers // the pool's, shared by its servers

	// noiseLines counts the lines on stdout that were not JSON-RPC, over
	// every connection; noiseWarned makes the first one a warning.
	noiseLines  atomic.Int64
	noiseWarned atomic.Bool
	// rootsAsked counts the server's roots/list requests.
	rootsAsked atomic.Int64

	changed chan struct{} // list_changed seen; buffer 1, a full buffer already means "re-list"
	restart chan struct{} // Restart requested; buffer 1, extra requests coalesce
	suspect chan struct{} // a call hit a transport error; buffer 1, coalesces
	started chan struct{} // closed after the first connect attempt
	done    chan struct{} // closed when the supervisor has returned
	// stop ends this supervisor alone (Pool.Apply); set by Pool.launchLocked
	// under the pool's mu before the goroutine starts, read under it after.
	stop context.CancelFunc

	// classic is set once new-style discovery failed and the classic
	// initialize worked; later reconnects go straight to initialize.
	classic atomic.Bool

	progressSeq atomic.Uint64
	progressFns sync.Map // progress token (string) -> func(tools.Progress)

	mu     sync.Mutex
	status Status       // mu guards status, cur, tools, pid
	cur    *conn        // the live connection while ready
	tools  []tools.Tool // current tool set after Allow/Deny
	pid    int          // pid of the current stdio child, for tests and doctor

	// users runs the per-user instances of a per-user server; nil otherwise.
	users *userSet
}

func newServer(cfg ServerConfig, opts *Options, bufs *stdio.Buffers) *server {
	s := &server{
		cfg:     cfg,
		opts:    opts,
		bufs:    bufs,
		log:     opts.Logger.With(logKeyServer, cfg.Name),
		stderr:  newLineRing(opts.StderrLines, maxStderrLineBytes),
		changed: make(chan struct{}, 1),
		restart: make(chan struct{}, 1),
		suspect: make(chan struct{}, 1),
		started: make(chan struct{}),
		done:    make(chan struct{}),
	}
	s.status = Status{Name: cfg.Name, Transport: cfg.transport(), State: StateStarting, Since: time.Now(), Roots: rootURIs(cfg.Roots)}
	if cfg.transport() == TransportStdio {
		s.status.Sandbox, s.status.SandboxPaths = cfg.Sandbox.String(), cfg.Sandbox.Details()
	}
	if tr := cfg.transport(); tr != TransportStdio {
		s.auth = newOAuthState(s)
	}
	if cfg.PerUser != nil {
		s.users = newUserSet(s, cfg.PerUser)
	}
	return s
}

// run is the supervisor loop. It returns when ctx ends.
func (s *server) run(ctx context.Context) {
	var (
		failures  []time.Time // recent failure times, within RestartWindow
		firstDone bool
	)
	// markFirst releases Pool.Start once the first attempt has a visible
	// outcome: ready, or a failure state with its reason.
	markFirst := func() {
		if !firstDone {
			firstDone = true
			close(s.started)
		}
	}
	settle := func(st State, err error) {
		s.setState(st, err)
		markFirst()
	}
	defer markFirst()
	defer s.setState(StateStopped, nil)
	if s.users != nil {
		s.users.start(ctx)
		defer s.users.close()
	}
	for {
		c, err := s.dial(ctx)
		if err == nil {
			err = s.serve(ctx, c, markFirst)
		}
		if ctx.Err() != nil {
			return
		}
		switch {
		case errors.Is(err, errRestartRequested):
			failures = nil
			s.bumpRestarts()
			settle(StateRestarting, nil)
			continue
		case errors.Is(err, ErrNeedsLogin):
			// Retrying cannot help until the user has logged in.
			settle(StateFailed, err)
			if !s.waitRestart(ctx) {
				return
			}
			continue
		case isSetupError(err):
			// Retrying cannot help either; say why once, as a server
			// served over stdio has no status page to show it.
			s.log.Error("mcp server cannot start; fix its configuration, then restart it", logKeyErr, err)
			settle(StateDisabled, err)
			if !s.waitRestart(ctx) {
				return
			}
			continue
		}
		now := time.Now()
		failures = append(slices.DeleteFunc(failures, func(t time.Time) bool {
			return now.Sub(t) > s.opts.RestartWindow
		}), now)
		if len(failures) >= s.opts.MaxRestarts {
			s.log.Error("mcp server failed too often, giving up", logKeyFailures, len(failures), logKeyErr, err)
			settle(StateFailed, err)
			if !s.waitRestart(ctx) {
				return
			}
			failures = nil
			s.bumpRestarts()
			continue
		}
		s.log.Warn("mcp server down, restarting", logKeyErr, err, logKeyFailures, len(failures))
		settle(StateRestarting, err)
		if !s.backoff(ctx, len(failures)) {
			return
		}
		s.bumpRestarts()
	}
}

var errRestartRequested = errors.New("restart requested")

// backoff waits before reconnect attempt n (1-based): initial*2^(n-1),
// capped at max, with ±20% jitter so servers that died together do not
// come back in lockstep. A Restart request cuts the wait short. It
// reports false when ctx ended.
func (s *server) backoff(ctx context.Context, n int) bool {
	d := backoffDelay(n, s.opts.RestartBackoffInitial, s.opts.RestartBackoffMax, rand.Float64())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-s.restart:
		return true
	}
}

// backoffDelay is the wait before reconnect attempt n (1-based) for a
// jitter draw r in [0,1): initial*2^(n-1), capped at ceiling, scaled by 0.8..1.2.
func backoffDelay(n int, initial, ceiling time.Duration, r float64) time.Duration {
	d := initial
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return time.Duration(float64(d) * (0.8 + 0.4*r))
}

// waitRestart blocks until Restart is called or ctx ends.
func (s *server) waitRestart(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-s.restart:
		return true
	}
}

// serve lists the tools, marks the server ready and keeps the connection
// healthy until it fails, ctx ends or a restart is requested. It always
// closes c and withdraws the tools before returning.
func (s *server) serve(ctx context.Context, c *conn, ready func()) error {
	published := false
	defer func() {
		s.mu.Lock()
		s.cur, s.tools, s.status.Tools = nil, nil, 0
		s.mu.Unlock()
		c.close()
		if published && s.opts.OnToolsChanged != nil {
			s.opts.OnToolsChanged(s.cfg.Name, nil)
		}
	}()
	// Drop list_changed signals and suspicions raised against an earlier
	// connection, before this one is published and can raise its own.
	select {
	case <-s.changed:
	default:
	}
	select {
	case <-s.suspect:
	default:
	}
	lctx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
	ts, err := s.listTools(lctx, c)
	cancel()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cur = c
	s.setToolsLocked(ts)
	if r := c.cs.InitializeResult(); r != nil {
		s.status.ProtocolVersion = r.ProtocolVersion
		s.status.Instructions = r.Instructions
		if r.ServerInfo != nil {
			s.status.ServerName, s.status.ServerVersion = r.ServerInfo.Name, r.ServerInfo.Version
		}
	}
	s.status.Transport = c.transport
	s.mu.Unlock()
	s.setState(StateReady, nil)
	s.publishTools()
	published = true
	ready()
	s.log.Info("mcp server ready", logKeyTools, len(ts), logKeyProtocol, c.protocolVersion(), logKeyTransport, c.transport)

	var tick <-chan time.Time
	if s.opts.PingInterval > 0 {
		t := time.NewTicker(s.opts.PingInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.restart:
			return errRestartRequested
		case <-c.done:
			return connLost(c)
		case <-tick:
			if err := s.healthCheck(ctx, c); err != nil {
				return lossReason(c, err)
			}
		case <-s.suspect:
			// A call failed below the protocol: check now rather than at
			// the next tick, so a dead remote server is noticed at once.
			if err := s.healthCheck(ctx, c); err != nil {
				return lossReason(c, err)
			}
		case <-s.changed:
			lctx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
			ts, err := s.listTools(lctx, c)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("re-listing tools after list_changed: %w", err)
			}
			s.mu.Lock()
			s.setToolsLocked(ts)
			s.mu.Unlock()
			s.publishTools()
			s.emitStatus()
		}
	}
}

// healthCheck pings the server. Protocol 2026-07-28 removed ping (the
// session is stateless), so there a tools/list stands in for it: it is
// cheap, and the SDK answers it from its cache while the server's TTL lasts.
func (s *server) healthCheck(ctx context.Context, c *conn) error {
	timeout := s.opts.ConnectTimeout
	if s.opts.PingInterval > 0 {
		timeout = min(s.opts.PingInterval, timeout)
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var err error
	if c.hasPing() {
		err = c.cs.Ping(pctx, nil)
	} else {
		_, err = c.cs.ListTools(pctx, nil)
	}
	s.log.Debug("health check", logKeyErr, err)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("health check failed: %w", err)
	}
	return nil
}

// reportSuspect asks the supervisor to check the connection now; it never blocks.
func (s *server) reportSuspect() {
	select {
	case s.suspect <- struct{}{}:
	default:
	}
}

// lossReason explains a failed health check: a stdio server whose process
// has exited failed because it exited, which says more than the broken pipe.
func lossReason(c *conn, err error) error {
	if c.pipe != nil {
		if st := c.pipe.ExitState(200 * time.Millisecond); st != "" {
			return fmt.Errorf("server process exited (%s)", st)
		}
	}
	return err
}

// connLost describes why a session ended without us closing it.
func connLost(c *conn) error {
	if c.waitErr != nil {
		return fmt.Errorf("connection lost: %w", c.waitErr)
	}
	if c.pipe != nil {
		// Its stdout ended; the process is normally reaped at once.
		if st := c.pipe.ExitState(time.Second); st != "" {
			return fmt.Errorf("server process exited (%s)", st)
		}
		return errors.New("server closed its stdout")
	}
	return errors.New("connection closed by server")
}

// listTools fetches every page of tools/list and converts the tools,
// skipping (and logging) any whose schema cannot be encoded.
func (s *server) listTools(ctx context.Context, c *conn) ([]tools.Tool, error) {
	if r := c.cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Tools == nil {
		return nil, nil // the server has no tools capability: nothing to list
	}
	var out []tools.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		if !allowed(t.Name, s.cfg.Allow, s.cfg.Deny) {
			continue
		}
		info, err := infoFromMCP(t)
		if err != nil {
			s.log.Warn("skipping tool", logKeyTool, t.Name, logKeyErr, err)
			continue
		}
		name, err := json.Marshal(t.Name)
		if err != nil {
			s.log.Warn("skipping tool", logKeyTool, t.Name, logKeyErr, err)
			continue
		}
		out = append(out, &mcpTool{srv: s, info: info, nameJSON: name})
	}
	return out, nil
}
