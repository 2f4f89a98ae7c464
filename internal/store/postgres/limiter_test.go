package postgres_test

import (
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
)

// TestLimiterAcrossReplicas hammers one user's limit from three replicas
// at once: together they allow exactly the limit per window, however the
// requests spread, and refuse the rest with a RateLimitError.
func TestLimiterAcrossReplicas(t *testing.T) {
	dsn := schemaDSN(t)
	const (
		burst    = 30
		perHour  = 30.0 / 3600 // one window per hour: the test fits in one
		requests = 300
	)
	var limiters []*postgres.Limiter
	for range 3 {
		limiters = append(limiters, open(t, dsn).NewLimiter("requests", perHour, burst))
	}
	var (
		allowed, refused atomic.Int64
		wg               sync.WaitGroup
	)
	for i := range requests {
		l := limiters[i%len(limiters)]
		wg.Go(func() {
			err := l.Allow(t.Context(), "ada", "requests")
			var rl *store.RateLimitError
			switch {
			case err == nil:
				allowed.Add(1)
			case errors.As(err, &rl):
				if rl.RetryAfter <= 0 || rl.What != "requests" {
					t.Errorf("RateLimitError %+v", rl)
				}
				refused.Add(1)
			default:
				t.Errorf("Allow: %v", err)
			}
		})
	}
	wg.Wait()
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var windows int64
	if err := raw.QueryRowContext(t.Context(), `SELECT count(*) FROM rate_limits WHERE user_name = 'ada'`).Scan(&windows); err != nil {
		t.Fatal(err)
	}
	if want := burst * windows; allowed.Load() != want {
		t.Errorf("allowed %d of %d requests over %d window(s), want exactly %d", allowed.Load(), requests, windows, want)
	}
	if allowed.Load()+refused.Load() != requests {
		t.Errorf("allowed %d + refused %d != %d", allowed.Load(), refused.Load(), requests)
	}
	// Another user has a limit of their own.
	if err := limiters[0].Allow(t.Context(), "bob", "requests"); err != nil {
		t.Errorf("another user refused: %v", err)
	}
	// No limit allows everything.
	unlimited := open(t, dsn).NewLimiter("tool calls", -1, 0)
	for range 100 {
		if err := unlimited.Allow(t.Context(), "ada", "tool calls"); err != nil {
			t.Fatalf("unlimited: %v", err)
		}
	}
}
