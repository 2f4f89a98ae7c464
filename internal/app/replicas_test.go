package app

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// serveReplica serves an App on dsn at a loopback address until the test
// ends, and returns the App and its base URL.
func serveReplica(t *testing.T, dsn string, configure ...func(*config.Config)) (*App, string) {
	t.Helper()
	return serveWith(t, dsn, nil, configure...)
}

// serveWith is serveReplica with the App's options.
func serveWith(t *testing.T, dsn string, opts *Options, configure ...func(*config.Config)) (*App, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.Database.URL = dsn
	for _, c := range configure {
		c(cfg)
	}
	a, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	ready := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := a.Serve(ctx, ln, func(string) { close(ready) }, nil); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		_ = a.Close()
	})
	<-ready
	return a, "http://" + ln.Addr().String()
}

// status returns the status of GET url with key ("" sends none).
func status(t *testing.T, url, key string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// within polls cond until it holds or d passes, and reports how long it
// took and whether it held.
func within(d time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			return time.Since(start), false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start), true
}

// TestUsersAcrossReplicas adds and removes a user through one replica: the
// other ends anonymous access and accepts, then refuses, the key within
// a second, and is anonymous again once no user is left.
func TestUsersAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresSchema(t)
	a, _ := serveReplica(t, dsn)
	_, bURL := serveReplica(t, dsn)
	agents := bURL + "/api/v1/agents"
	if got := status(t, agents, ""); got != http.StatusOK {
		t.Fatalf("anonymous request before any user: %d, want 200", got)
	}
	u, key, err := a.AddUser(t.Context(), "ada", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took, ok := within(time.Second, func() bool { return status(t, agents, "") == http.StatusUnauthorized }); !ok {
		t.Errorf("the other replica still serves anonymous requests %s after a user was added", took)
	}
	if got := status(t, agents, key); got != http.StatusOK {
		t.Errorf("the new user's key on the other replica: %d, want 200", got)
	}
	if err := a.RemoveUser(t.Context(), u.Name); err != nil {
		t.Fatal(err)
	}
	if took, ok := within(time.Second, func() bool { return status(t, agents, key) == http.StatusUnauthorized }); !ok {
		t.Errorf("the removed user's key still works on the other replica after %s", took)
	}
	// No user left: a loopback service is the single-user laptop mode
	// again (docs/SECURITY.md, Identity and roles), on every replica.
	if took, ok := within(time.Second, func() bool { return status(t, agents, "") == http.StatusOK }); !ok {
		t.Errorf("anonymous request %s after the last user was removed: still refused", took)
	}
}

// TestRateLimitAcrossReplicas sends one user's requests to two replicas
// at once: together they allow the limit once, not once each.
func TestRateLimitAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresSchema(t)
	limit := func(c *config.Config) { c.RateLimits.RequestsPerMinute = 6 } // a burst of 1 per 10 s window
	a, aURL := serveReplica(t, dsn, limit)
	_, bURL := serveReplica(t, dsn, limit)
	_, key, err := a.AddUser(t.Context(), "ada", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		codes = map[int]int{}
		wg    sync.WaitGroup
	)
	start := time.Now()
	for i := range 20 {
		url := aURL
		if i%2 == 1 {
			url = bURL
		}
		wg.Go(func() {
			code := status(t, url+"/api/v1/agents", key)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	// Each 10 s window allows one request; the requests may straddle two.
	windows := 1
	if time.Since(start) > 0 && start.Truncate(10*time.Second) != time.Now().Truncate(10*time.Second) {
		windows = 2
	}
	if codes[http.StatusOK] < 1 || codes[http.StatusOK] > windows || codes[http.StatusOK]+codes[http.StatusTooManyRequests] != 20 {
		t.Errorf("status counts %v; want %d or fewer 200s and the rest 429", codes, windows)
	}
}

// TestRuntimeStoreFeed: the runtime waits for approvals on the change feed
// only where the feed reaches every process (PostgreSQL); on SQLite it
// keeps polling.
func TestRuntimeStoreFeed(t *testing.T) {
	pg, err := postgres.Open(t.Context(), storetest.PostgresSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	lite, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, ok := forRuntime(pg, postgresReplicas(pg)).(store.Changes); !ok {
		t.Error("the runtime's PostgreSQL store has no change feed")
	}
	if _, ok := forRuntime(lite, nil).(store.Changes); ok {
		t.Error("the runtime's SQLite store offers its in-process feed; a decision from another process would never arrive")
	}
	if _, ok := forRuntime(lite, nil).(agent.ApprovalGetter); !ok {
		t.Error("the runtime's SQLite store cannot be polled")
	}
}

// TestAnonymousEndsWithSQLiteUserFromAnotherProcess adds a user through a
// second App on the same SQLite file, as `switchboard users add` does
// beside a running `serve`: anonymous access ends by polling.
func TestAnonymousEndsWithSQLiteUserFromAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	_, url := serveReplica(t, "", func(c *config.Config) { c.Data = data })
	if got := status(t, url+"/api/v1/agents", ""); got != http.StatusOK {
		t.Fatalf("anonymous request before any user: %d", got)
	}
	cfg := config.Default()
	cfg.Data = data
	cfg.Builtin.Roots = []string{dir}
	other, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, _, err := other.AddUser(t.Context(), "ada", false, nil); err != nil {
		t.Fatal(err)
	}
	if took, ok := within(5*time.Second, func() bool { return status(t, url+"/api/v1/agents", "") == http.StatusUnauthorized }); !ok {
		t.Errorf("anonymous access still on %s after another process added a user", took)
	}
}

// TestStoreOpenerReturnsReplicas: the App learns what a store offers
// replicas from the opener, not by asking the store's type: PostgreSQL
// gives the shared limiter, feed and answers; SQLite gives nothing.
func TestStoreOpenerReturnsReplicas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		url    func() string
		shared bool
	}{
		{"sqlite", func() string { return "" }, false},
		{"postgres", func() string { return storetest.PostgresSchema(t) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Data = t.TempDir()
			cfg.Database.URL = tc.url()
			a, err := New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if sh := a.replicas(); sh != nil {
				t.Fatalf("replicas before the store is open: %+v", sh)
			}
			if _, err := a.Store(t.Context()); err != nil {
				t.Fatal(err)
			}
			sh := a.replicas()
			if got := sh != nil; got != tc.shared {
				t.Fatalf("replicas capability present = %v, want %v", got, tc.shared)
			}
			if sh != nil && (sh.limiter == nil || sh.pruneLimits == nil || sh.feed == nil || sh.answers == nil) {
				t.Errorf("partial replicas capability: %+v", sh)
			}
		})
	}
}
