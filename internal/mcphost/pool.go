package mcphost

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Pool supervises the connections to a set of MCP servers. Create it with
// [NewPool], call [Pool.Start] once, and [Pool.Close] when done. All methods
// are safe for concurrent use.
type Pool struct {
	opts Options
	bufs stdio.Buffers // transport buffers, shared by the servers
	// set is the current servers, replaced whole by [Pool.Apply], so the
	// per-call lookups take no lock.
	set atomic.Pointer[serverSet]

	// applyMu serialises Apply: one diff at a time, each against the set
	// the previous one left.
	applyMu sync.Mutex

	mu      sync.Mutex
	started bool // mu guards started, closed, runCtx, cancel
	closed  bool
	runCtx  context.Context //nolint:containedctx // the supervisors' parent, the pool's lifetime; cancelled by Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup // one per supervisor goroutine
}

// serverSet is an immutable set of supervisors.
type serverSet struct {
	servers []*server // sorted by name
	byName  map[string]*server
}

func newServerSet(servers []*server) *serverSet {
	ss := &serverSet{servers: servers, byName: make(map[string]*server, len(servers))}
	slices.SortFunc(ss.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	for _, s := range servers {
		ss.byName[s.cfg.Name] = s
	}
	return ss
}

// NewPool returns a pool for servers; nothing starts until [Pool.Start].
// opts may be nil. Servers with duplicate names keep the first.
func NewPool(servers []ServerConfig, opts *Options) *Pool {
	p := &Pool{opts: opts.withDefaults()}
	var list []*server
	for _, sc := range dedupe(servers, p.opts.Logger) {
		list = append(list, newServer(sc, &p.opts, &p.bufs))
	}
	p.set.Store(newServerSet(list))
	return p
}

// dedupe drops the later of servers with the same name, with a warning.
func dedupe(servers []ServerConfig, logger *slog.Logger) []ServerConfig {
	seen := make(map[string]bool, len(servers))
	out := make([]ServerConfig, 0, len(servers))
	for _, sc := range servers {
		if seen[sc.Name] {
			logger.Warn("duplicate mcp server name, ignoring the later one", logKeyServer, sc.Name)
			continue
		}
		seen[sc.Name] = true
		out = append(out, sc)
	}
	return out
}

// Start launches one supervisor per server, all concurrently, then waits
// until each server is ready or has failed its first attempt, or ctx ends,
// and never longer than [Options.ConnectTimeout] (plus a moment): a server
// still connecting then shows state starting. ctx bounds only the wait: the
// supervisors live until [Pool.Close]. Calling Start again, or after Close,
// does nothing.
func (p *Pool) Start(ctx context.Context) {
	p.mu.Lock()
	if p.started || p.closed {
		p.mu.Unlock()
		return
	}
	p.started = true
	p.runCtx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	servers := p.set.Load().servers
	for _, s := range servers {
		p.launchLocked(s)
	}
	p.mu.Unlock()
	p.awaitFirst(ctx, servers)
}

// launchLocked starts s's supervisor under a context of its own, so that
// Apply can stop one server and Close all of them. p.mu must be held and
// the pool started and not closed.
func (p *Pool) launchLocked(s *server) {
	ctx, cancel := context.WithCancel(p.runCtx)
	s.stop = cancel
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(s.done)
		s.run(ctx)
	}()
}

// awaitFirst waits until each of servers has become ready or failed its
// first attempt, or ctx ends, and never longer than ConnectTimeout plus a
// moment. After a timed-out handshake the SDK still gives a stdio child
// ShutdownTimeout (twice, with SIGTERM between) to exit before the
// failure is recorded; awaitFirst does not wait for that.
func (p *Pool) awaitFirst(ctx context.Context, servers []*server) {
	deadline := time.NewTimer(p.opts.ConnectTimeout + startSlack)
	defer deadline.Stop()
	for _, s := range servers {
		select {
		case <-s.started:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// startSlack is what Start allows beyond ConnectTimeout for a failed first
// attempt to be recorded.
const startSlack = 250 * time.Millisecond

// Close stops every supervisor, closes every session and stops every stdio
// server (stdin closed, then SIGTERM and SIGKILL after each server's
// ShutdownTimeout), and waits for all of it. It is idempotent and safe to
// call concurrently; it returns nil.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	cancel := p.cancel
	p.mu.Unlock()
	if cancel == nil {
		// Never started: no supervisor will record the end.
		for _, s := range p.set.Load().servers {
			s.setState(StateStopped, nil)
		}
		return nil
	}
	cancel()
	p.wg.Wait()
	return nil
}

// Status returns a snapshot of every server, ordered by name.
func (p *Pool) Status() []Status {
	servers := p.set.Load().servers
	out := make([]Status, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.snapshot())
	}
	return out
}

// Tools returns the tools of every ready server, after Allow/Deny, ordered
// by server name and then in the order the server listed them.
func (p *Pool) Tools() []tools.Tool {
	var out []tools.Tool
	for _, s := range p.set.Load().servers {
		s.mu.Lock()
		out = append(out, s.tools...)
		s.mu.Unlock()
	}
	return out
}

// Restart makes the named server reconnect now: a ready server is closed and
// reconnected, one waiting out its backoff retries at once, and a failed or
// disabled one gets a fresh restart budget.
func (p *Pool) Restart(name string) error {
	s, err := p.server(name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	started, closed := p.started, p.closed
	p.mu.Unlock()
	if !started || closed {
		return fmt.Errorf("restarting mcp server %q: the pool is not running", name)
	}
	s.requestRestart()
	return nil
}

func (p *Pool) server(name string) (*server, error) {
	s, ok := p.set.Load().byName[name]
	if !ok {
		return nil, fmt.Errorf("unknown mcp server %q", name)
	}
	return s, nil
}

// conn returns the live connection of the named server, or an error
// wrapping [tools.ErrUnavailable].
func (p *Pool) conn(name string) (*server, *conn, error) {
	s, err := p.server(name)
	if err != nil {
		return nil, nil, err
	}
	c := s.current()
	if c == nil {
		return nil, nil, fmt.Errorf("mcp server %q is %s: %w", name, s.snapshot().State, tools.ErrUnavailable)
	}
	return s, c, nil
}
