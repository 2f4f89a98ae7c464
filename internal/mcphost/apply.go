package mcphost

import (
	"context"
	"errors"
	"reflect"
	"slices"
)

// Change says what [Pool.Apply] did, each list sorted by name.
type Change struct {
	// Added servers got a supervisor of their own.
	Added []string
	// Removed servers were stopped: their tools withdrawn, their sessions
	// closed and their processes ended before Apply returned.
	Removed []string
	// Restarted servers had a different configuration: the old supervisor
	// was stopped as a removed one is, then a new one started.
	Restarted []string
}

// Empty reports whether Apply changed nothing.
func (c Change) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Restarted) == 0
}

// ErrPoolClosed is returned by [Pool.Apply] after [Pool.Close].
var ErrPoolClosed = errors.New("the mcp server pool is closed")

// Apply makes the pool's servers those of servers, as a diff against the
// current ones: a server whose configuration is unchanged keeps its
// supervisor, connection, process and tools; a removed one is stopped and
// its tools withdrawn (OnToolsChanged with nil); a changed one is stopped
// the same way and started again with its new configuration; an added one
// is started. Stopped servers' processes have ended when Apply returns.
// Servers with duplicate names keep the first, as in [NewPool].
//
// On a started pool Apply then waits, like [Pool.Start], until each started
// server is ready or has failed its first attempt, or ctx ends; ctx bounds
// only that wait. Before Start it only replaces the set that Start will
// launch. Calls are serialised. After Close it changes nothing and
// returns [ErrPoolClosed]; a Close during Apply leaves the new servers
// stopped and returns it too.
func (p *Pool) Apply(ctx context.Context, servers []ServerConfig) (Change, error) {
	p.applyMu.Lock()
	defer p.applyMu.Unlock()

	cur := p.set.Load()
	var (
		ch       Change
		next     []*server // the new set
		fresh    []*server // its servers that need a supervisor
		stopping []*server // current servers to stop
	)
	want := dedupe(servers, p.opts.Logger)
	wanted := make(map[string]bool, len(want))
	for _, sc := range want {
		wanted[sc.Name] = true
		old, ok := cur.byName[sc.Name]
		switch {
		case ok && reflect.DeepEqual(old.cfg, sc):
			next = append(next, old)
			continue
		case ok:
			ch.Restarted = append(ch.Restarted, sc.Name)
			stopping = append(stopping, old)
		default:
			ch.Added = append(ch.Added, sc.Name)
		}
		s := newServer(sc, &p.opts, &p.bufs)
		next = append(next, s)
		fresh = append(fresh, s)
	}
	for _, s := range cur.servers {
		if !wanted[s.cfg.Name] {
			ch.Removed = append(ch.Removed, s.cfg.Name)
			stopping = append(stopping, s)
		}
	}
	slices.Sort(ch.Added)
	slices.Sort(ch.Removed)
	slices.Sort(ch.Restarted)

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return Change{}, ErrPoolClosed
	}
	if !p.started {
		// Nothing runs yet: Start launches whatever the set holds then.
		p.set.Store(newServerSet(next))
		p.mu.Unlock()
		for _, s := range stopping {
			s.setState(StateStopped, nil)
		}
		return ch, nil
	}
	for _, s := range stopping {
		s.stop()
	}
	p.mu.Unlock()

	// A stopped supervisor withdraws its tools as it returns; its
	// successor must not publish before that, or the withdrawal would
	// remove the successor's tools of the same server name.
	for _, s := range stopping {
		<-s.done
	}

	p.mu.Lock()
	if p.closed {
		// Close has waited for every supervisor it knew; launching now
		// would leave goroutines nobody waits for.
		p.set.Store(newServerSet(next))
		p.mu.Unlock()
		for _, s := range fresh {
			s.setState(StateStopped, nil)
		}
		return ch, ErrPoolClosed
	}
	for _, s := range fresh {
		p.launchLocked(s)
	}
	p.set.Store(newServerSet(next))
	p.mu.Unlock()
	p.awaitFirst(ctx, fresh)
	return ch, nil
}
