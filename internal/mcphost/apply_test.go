package mcphost_test

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// published records what OnToolsChanged said last for each server, as a
// registry would hold it.
type published struct {
	mu    sync.Mutex
	names map[string][]string // nil entry: withdrawn
}

func (p *published) set(server string, ts []tools.Tool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names == nil {
		p.names = map[string][]string{}
	}
	if ts == nil {
		delete(p.names, server)
		return
	}
	p.names[server] = toolNames(ts)
}

func (p *published) servers() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.names))
}

func TestApplyDiff(t *testing.T) {
	t.Parallel()
	var pub published
	opts := testOptions()
	opts.OnToolsChanged = pub.set
	keep := mcptest.StdioServer(t, "keep")
	change := mcptest.StdioServer(t, "change")
	gone := mcptest.StdioServer(t, "gone")
	p := startPool(t, []mcphost.ServerConfig{keep, change, gone}, opts)
	keepPID := waitState(t, p, "keep", mcphost.StateReady).PID
	changePID := waitState(t, p, "change", mcphost.StateReady).PID
	gonePID := waitState(t, p, "gone", mcphost.StateReady).PID

	changed := change
	changed.Allow = []string{"echo"} // a different config: restarted
	added := mcptest.StdioServer(t, "added")
	ch, err := p.Apply(t.Context(), []mcphost.ServerConfig{added, changed, keep})
	if err != nil {
		t.Fatal(err)
	}
	want := mcphost.Change{Added: []string{"added"}, Removed: []string{"gone"}, Restarted: []string{"change"}}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("change mismatch (-want +got):\n%s", diff)
	}
	if alive(t, gonePID) {
		t.Errorf("removed server's process %d still exists after Apply", gonePID)
	}
	if alive(t, changePID) {
		t.Errorf("changed server's old process %d still exists after Apply", changePID)
	}
	if st := statusOf(t, p, "keep"); st.PID != keepPID || st.Restarts != 0 || st.State != mcphost.StateReady {
		t.Errorf("unchanged server disturbed: pid %d (was %d), %+v", st.PID, keepPID, st)
	}
	if n := mcptest.CountEvents(mcptest.EventsFile(keep), "pid "); n != 1 {
		t.Errorf("unchanged server started %d processes, want 1", n)
	}
	st := waitState(t, p, "change", mcphost.StateReady)
	if st.PID == changePID || !alive(t, st.PID) {
		t.Errorf("changed server: pid %d, old %d", st.PID, changePID)
	}
	waitState(t, p, "added", mcphost.StateReady)
	var names []string
	for _, s := range p.Status() {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"added", "change", "keep"}, names); diff != "" {
		t.Errorf("servers mismatch (-want +got):\n%s", diff)
	}
	if !mcptest.Poll(5*time.Second, func() bool {
		pub.mu.Lock()
		defer pub.mu.Unlock()
		return cmp.Equal([]string{"echo"}, pub.names["change"])
	}) {
		t.Errorf("changed server's tools after Apply: %v, want only echo (its new Allow)", pub.names["change"])
	}
	if diff := cmp.Diff([]string{"added", "change", "keep"}, pub.servers()); diff != "" {
		t.Errorf("published servers mismatch (-want +got):\n%s", diff)
	}
	// The kept server still answers on the connection it had.
	if _, err := call(t, findTool(t, p, "echo"), map[string]any{"text": "hi"}); err != nil {
		t.Errorf("calling a tool after Apply: %v", err)
	}

	// Applying the same set again changes nothing.
	ch, err = p.Apply(t.Context(), []mcphost.ServerConfig{keep, changed, added})
	if err != nil || !ch.Empty() {
		t.Errorf("same set again: %+v, %v", ch, err)
	}

	// Removing everything withdraws every tool and ends every process.
	pids := []int{statusOf(t, p, "keep").PID, statusOf(t, p, "change").PID, statusOf(t, p, "added").PID}
	if _, err := p.Apply(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(t, pid) {
			t.Errorf("process %d still exists after its server was removed", pid)
		}
	}
	if s := pub.servers(); len(s) != 0 || len(p.Tools()) != 0 || len(p.Status()) != 0 {
		t.Errorf("after removing all: published %v, %d tools, %d servers", s, len(p.Tools()), len(p.Status()))
	}
	if err := p.Restart("keep"); err == nil {
		t.Error("Restart of a removed server: no error")
	}
}

func TestApplyBeforeStartAndAfterClose(t *testing.T) {
	t.Parallel()
	a := mcptest.StdioServer(t, "a")
	b := mcptest.StdioServer(t, "b")
	p := mcphost.NewPool([]mcphost.ServerConfig{a}, testOptions())
	ch, err := p.Apply(t.Context(), []mcphost.ServerConfig{b, b})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mcphost.Change{Added: []string{"b"}, Removed: []string{"a"}}, ch); diff != "" {
		t.Errorf("change mismatch (-want +got):\n%s", diff)
	}
	if n := mcptest.CountEvents(mcptest.EventsFile(b), "pid "); n != 0 {
		t.Errorf("Apply before Start started %d processes", n)
	}
	p.Start(t.Context())
	waitState(t, p, "b", mcphost.StateReady)
	if n := mcptest.CountEvents(mcptest.EventsFile(a), "pid "); n != 0 {
		t.Errorf("a server removed before Start was started %d times", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(t.Context(), []mcphost.ServerConfig{a}); !errors.Is(err, mcphost.ErrPoolClosed) {
		t.Errorf("Apply after Close: %v, want ErrPoolClosed", err)
	}
}

// TestApplyConcurrentWithClose races Apply against Close and calls: no
// supervisor may outlive Close (goleak in TestMain checks it) and no
// process may survive.
func TestApplyConcurrentWithClose(t *testing.T) {
	t.Parallel()
	a := mcptest.StdioServer(t, "a")
	b := mcptest.StdioServer(t, "b")
	p := mcphost.NewPool([]mcphost.ServerConfig{a}, testOptions())
	p.Start(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 4 {
			set := []mcphost.ServerConfig{a}
			if i%2 == 0 {
				set = append(set, b)
			}
			if _, err := p.Apply(t.Context(), set); err != nil && !errors.Is(err, mcphost.ErrPoolClosed) {
				t.Errorf("Apply: %v", err)
			}
		}
	})
	wg.Go(func() {
		for range 50 {
			_ = p.Status()
			_ = p.Tools()
		}
	})
	time.Sleep(50 * time.Millisecond) //nolint:forbidigo // let Apply get under way; any interleaving is valid
	_ = p.Close()
	wg.Wait()
	for _, sc := range []mcphost.ServerConfig{a, b} {
		for _, pid := range mcptest.PIDs(sc) {
			if alive(t, pid) {
				t.Errorf("server %s process %d alive after Close", sc.Name, pid)
			}
		}
	}
}
