package users

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// countingSource is a hand-written [UserSource] that counts its reads.
type countingSource struct {
	mu       sync.Mutex
	users    []store.User
	version  int64
	versions int // UsersVersion calls
	lists    int // ListUsers calls
}

func (c *countingSource) ListUsers(context.Context) ([]store.User, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists++
	return append([]store.User(nil), c.users...), nil
}

func (c *countingSource) UsersVersion(context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.versions++
	return c.version, nil
}

func (c *countingSource) set(us ...store.User) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users = us
	c.version++
}

func (c *countingSource) counts() (versions, lists int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.versions, c.lists
}

// TestDirectoryCaching: lookups read the users version at most once per
// check interval, reload the users only when it changed, Invalidate forces
// the next check, and Empty checks every time.
func TestDirectoryCaching(t *testing.T) {
	src := &countingSource{}
	now := time.Unix(1000, 0)
	d := New(src, &Options{Check: time.Second, Now: func() time.Time { return now }})
	ctx := t.Context()
	src.set(store.User{ID: "u1", Name: "ann", KeyHash: "h1"})

	if _, ok, _ := d.ByKeyHash(ctx, "h1"); !ok {
		t.Fatal("ann not found")
	}
	for range 10 {
		_, _, _ = d.ByID(ctx, "u1")
	}
	if v, l := src.counts(); v != 1 || l != 1 {
		t.Errorf("within the interval: %d version reads, %d loads; want 1, 1", v, l)
	}
	src.set(store.User{ID: "u1", Name: "ann", KeyHash: "h1", Disabled: true})
	if u, _, _ := d.ByID(ctx, "u1"); u.Disabled {
		t.Error("a change showed before the interval passed or Invalidate (the cache is not used)")
	}
	d.Invalidate()
	if u, _, _ := d.ByID(ctx, "u1"); !u.Disabled {
		t.Error("after Invalidate the change does not show")
	}
	now = now.Add(2 * time.Second)
	_, _, _ = d.ByID(ctx, "u1")
	if v, l := src.counts(); v != 3 || l != 2 {
		t.Errorf("after the interval: %d version reads, %d loads; want 3, 2 (no reload when the version is unchanged)", v, l)
	}
	src.set()
	if empty, err := d.Empty(ctx); err != nil || !empty {
		t.Errorf("Empty after the last user left = %v, %v; want true at once", empty, err)
	}
}

// stallingSource is a countingSource whose next UsersVersion, once armed,
// reads the version and then waits until released: a check caught in the
// middle.
type stallingSource struct {
	countingSource
	armed   chan struct{} // receives when a read is to stall
	entered chan struct{} // closed when the stalled read has its version
	release chan struct{}
}

func (s *stallingSource) UsersVersion(ctx context.Context) (int64, error) {
	v, err := s.countingSource.UsersVersion(ctx)
	select {
	case <-s.armed:
		close(s.entered)
		<-s.release
	default:
	}
	return v, err
}

// TestDirectorySharesChecks: callers arriving while a check runs share the
// next one, never the running one: a user added after the running check
// read the version is seen by every caller that arrived after it was
// added, and eight such callers cost one read, not eight.
func TestDirectorySharesChecks(t *testing.T) {
	src := &stallingSource{armed: make(chan struct{}, 1), entered: make(chan struct{}), release: make(chan struct{})}
	d := New(src, nil)
	ctx := t.Context()
	if empty, err := d.Empty(ctx); err != nil || !empty {
		t.Fatalf("Empty with no users = %v, %v", empty, err)
	}

	src.armed <- struct{}{}
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = d.Empty(ctx) }) // arrived before the user: either answer is right
	<-src.entered
	src.set(store.User{ID: "u1", Name: "ann", KeyHash: "h1"})
	answers := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			empty, err := d.Empty(ctx)
			if err != nil {
				t.Error(err)
			}
			answers <- empty
		})
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		// The caller running the stalled check, and the eight sharing it.
		if n := d.waiting.Load(); n == 9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 9 callers in the running check", d.waiting.Load())
		}
	}
	close(src.release)
	wg.Wait()
	close(answers)
	for empty := range answers {
		if empty {
			t.Error("a caller that arrived after the first user was added was told there are no users")
		}
	}
	if v, _ := src.counts(); v != 3 {
		t.Errorf("%d reads of the users version; want 3 (the first, the stalled one, one shared by the eight)", v)
	}
}

// TestDirectoryInvalidateDuringCheck: an Invalidate that comes while a
// check runs is not undone by that check, which may have read the version
// before the change it announces: the next lookup, even within the check
// interval, reads again.
func TestDirectoryInvalidateDuringCheck(t *testing.T) {
	src := &stallingSource{armed: make(chan struct{}, 1), entered: make(chan struct{}), release: make(chan struct{})}
	d := New(src, &Options{Check: time.Hour})
	ctx := t.Context()
	src.set(store.User{ID: "u1", Name: "ann", KeyHash: "h1"})
	if _, ok, err := d.ByID(ctx, "u1"); err != nil || !ok {
		t.Fatalf("ann: %v, %v", ok, err)
	}

	src.armed <- struct{}{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = d.Empty(ctx)
	}()
	<-src.entered
	src.set(store.User{ID: "u1", Name: "ann", KeyHash: "h1"}, store.User{ID: "u2", Name: "bob", KeyHash: "h2"})
	d.Invalidate() // as the change feed does when another replica adds bob
	close(src.release)
	<-done
	if _, ok, err := d.ByID(ctx, "u2"); err != nil || !ok {
		t.Errorf("bob, added and announced while a check ran, not found (%v, %v): the check marked a stale view fresh", ok, err)
	}
}

// panickingSource panics on its first UsersVersion.
type panickingSource struct {
	countingSource
	panicked bool
}

func (p *panickingSource) UsersVersion(ctx context.Context) (int64, error) {
	if !p.panicked {
		p.panicked = true
		panic("store bug")
	}
	return p.countingSource.UsersVersion(ctx)
}

// TestDirectoryCheckThatPanics: a store that panics during a check fails
// that lookup, and the next lookups still run (nobody waits forever for the
// check that never ended).
func TestDirectoryCheckThatPanics(t *testing.T) {
	src := &panickingSource{}
	d := New(src, nil)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the store's panic was swallowed")
			}
		}()
		_, _ = d.Empty(t.Context())
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if empty, err := d.Empty(t.Context()); err != nil || !empty {
			t.Errorf("Empty after the panic = %v, %v; want true, nil", empty, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Empty after a check that panicked is still waiting")
	}
}
