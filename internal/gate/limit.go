package gate

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is the per-user rate limit of one kind of request. Allow takes
// one unit of what for user (a user ID, or "local") and returns nil, or a
// *[RateError] when the user is over the limit. Implementations are safe
// for concurrent use; a shared one (several processes) may also return
// other errors, which callers treat as a refusal.
type Limiter interface {
	Allow(ctx context.Context, user, what string) error
}

// RateError is a refusal by a [Limiter]: the user is over the limit and
// may retry after RetryAfter seconds.
type RateError struct {
	What       string
	RetryAfter int
}

func (e *RateError) Error() string {
	return fmt.Sprintf("too many %s for this user; retry in %d s", e.What, e.RetryAfter)
}

// Buckets is the in-process [Limiter]: one token bucket per user,
// created on first use and kept (users are few, one per API key).
type Buckets struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu     sync.Mutex
	byUser map[string]*rate.Limiter // guarded by mu
}

// NewBuckets returns buckets refilled at perSecond with room for burst;
// a negative perSecond means no limit. now nil means time.Now.
func NewBuckets(perSecond float64, burst int, now func() time.Time) *Buckets {
	l := rate.Limit(perSecond)
	if perSecond < 0 {
		l = rate.Inf
	}
	if now == nil {
		now = time.Now
	}
	return &Buckets{limit: l, burst: burst, now: now, byUser: map[string]*rate.Limiter{}}
}

// Allow implements [Limiter].
func (b *Buckets) Allow(_ context.Context, user, what string) error {
	if b.limit == rate.Inf {
		return nil
	}
	b.mu.Lock()
	lim, ok := b.byUser[user]
	if !ok {
		lim = rate.NewLimiter(b.limit, b.burst)
		b.byUser[user] = lim
	}
	b.mu.Unlock()
	now := b.now()
	res := lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	res.CancelAt(now)
	return &RateError{What: what, RetryAfter: max(1, int(math.Ceil(delay.Seconds())))}
}

var _ Limiter = (*Buckets)(nil)
