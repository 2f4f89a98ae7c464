package server

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiters holds one token bucket per user for one kind of request.
// Buckets are created on first use and kept: users are few (one per API
// key), so the map stays small.
type limiters struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu     sync.Mutex
	byUser map[string]*rate.Limiter // guarded by mu
}

func newLimiters(perSecond float64, burst int, now func() time.Time) *limiters {
	l := rate.Limit(perSecond)
	if perSecond < 0 {
		l = rate.Inf
	}
	return &limiters{limit: l, burst: burst, now: now, byUser: map[string]*rate.Limiter{}}
}

// Limiter decides whether a user may make one more request of a kind: nil,
// or an error that says so ([*store.RateLimitError], answered with 429 and
// Retry-After). Implementations are safe for concurrent use.
type Limiter interface {
	Allow(ctx context.Context, user, what string) error
}

var _ Limiter = (*limiters)(nil)

// Allow takes a token from user's bucket; when there is none it returns a
// 429 error that carries the seconds to wait.
func (l *limiters) Allow(_ context.Context, user, what string) error {
	if l.limit == rate.Inf {
		return nil
	}
	l.mu.Lock()
	lim, ok := l.byUser[user]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.byUser[user] = lim
	}
	l.mu.Unlock()
	now := l.now()
	res := lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	res.CancelAt(now)
	secs := max(1, int(math.Ceil(delay.Seconds())))
	return &Error{
		Status: http.StatusTooManyRequests, Code: "rate_limited",
		Msg:        fmt.Sprintf("too many %s for this user; retry in %d s", what, secs),
		RetryAfter: secs,
	}
}

// toolLimit applies the user's tool-call rate limit to the tool calls of an
// agent run, so that a run cannot get around the limit of the tools API.
// ctx is the run's: the limiter may ask the database.
func (s *Server) toolLimit(ctx context.Context, user string) func(tool string) error {
	return func(string) error { return s.toolLimits.Allow(ctx, user, "tool calls") }
}
