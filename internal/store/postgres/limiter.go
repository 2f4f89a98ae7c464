package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Limiter is a per-user rate limit shared by every replica on the
// database: at most Burst requests per user in each window of Burst/Rate
// seconds, the same bound over any period (rate×t + burst) as a token
// bucket of that rate and burst.
//
// Each window's count is one row. A replica reserves a share of the
// window's limit with one atomic UPDATE and then allows requests from its
// share in process, so most requests touch no database; the database
// grants no more than the limit per window in total, so the replicas
// together never exceed it. A share unused when its window ends is lost:
// with S the share size, up to S×replicas of a window's limit can sit
// unused on other replicas, so S is a small part of the limit.
//
// Windows are read from the database's clock, so replicas whose clocks
// differ still count in the same windows. Safe for concurrent use.
type Limiter struct {
	db     *DB
	kind   string
	limit  int64
	window time.Duration
	share  int64
	now    func() time.Time

	// mu guards shares.
	mu     sync.Mutex
	shares map[string]*share
}

// share is what this replica holds of one user's window.
type share struct {
	window time.Time // the window's start, by the database's clock
	end    time.Time // its end, by this replica's clock
	left   int64
	// spent is set when the database had nothing more to grant in this
	// window: later requests are refused without asking again.
	spent bool
}

// NewLimiter returns a limiter of ratePerSecond with burst, counting under
// kind (one Limiter per kind: "requests", "tool calls"). A rate ≤ 0 or a
// burst ≤ 0 allows everything.
func (db *DB) NewLimiter(kind string, ratePerSecond float64, burst int) *Limiter {
	l := &Limiter{db: db, kind: kind, limit: int64(burst), now: time.Now, shares: map[string]*share{}}
	if ratePerSecond > 0 && burst > 0 {
		l.window = time.Duration(float64(burst) / ratePerSecond * float64(time.Second))
		l.window = max(l.window, time.Second)
		// A sixteenth of the limit: few round trips under load, little
		// stranded on other replicas.
		l.share = max(1, l.limit/16)
	}
	return l
}

// Allow counts one request of user, or returns a [*store.RateLimitError]
// when the user's limit is spent for this window; what names the requests
// in that error. Any other error is the database's.
func (l *Limiter) Allow(ctx context.Context, user, what string) error {
	if l.window == 0 {
		return nil
	}
	l.mu.Lock()
	s := l.shares[user]
	now := l.now()
	if s != nil && !now.Before(s.end) {
		s = nil
	}
	if s != nil {
		if s.left > 0 {
			s.left--
			l.mu.Unlock()
			return nil
		}
		if s.spent {
			l.mu.Unlock()
			return &store.RateLimitError{What: what, RetryAfter: s.end.Sub(now)}
		}
	}
	l.mu.Unlock()

	got, window, end, err := l.reserve(ctx, user)
	if err != nil {
		return fmt.Errorf("counting %s of %s: %w", what, user, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s = l.shares[user]
	if s == nil || !s.window.Equal(window) {
		s = &share{window: window, end: end}
		l.shares[user] = s
		l.pruneLocked(now)
	}
	s.left += got
	if got == 0 {
		s.spent = true
	}
	if s.left == 0 {
		return &store.RateLimitError{What: what, RetryAfter: s.end.Sub(l.now())}
	}
	s.left--
	return nil
}

// reserve asks the database for up to a share of user's current window,
// and returns what it granted, the window's start and its end by this
// replica's clock. The UPDATE reads the old count in its SET expressions,
// so last_grant is what this call added, even under concurrent callers.
func (l *Limiter) reserve(ctx context.Context, user string) (got int64, window, end time.Time, err error) {
	secs := l.window.Seconds()
	var dbNow time.Time
	asked := l.now()
	err = l.db.pool.QueryRowContext(ctx, `
		WITH w AS (SELECT clock_timestamp() AS now,
			to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $4::float8) * $4::float8) AS start)
		INSERT INTO rate_limits AS r (user_name, kind, window_start, used, last_grant)
			SELECT $1, $2, w.start, LEAST($3::bigint, $5::bigint), LEAST($3::bigint, $5::bigint) FROM w
		ON CONFLICT (user_name, kind, window_start) DO UPDATE
			SET last_grant = LEAST(r.used + $3::bigint, $5::bigint) - r.used, used = LEAST(r.used + $3::bigint, $5::bigint)
		RETURNING last_grant, window_start, (SELECT now FROM w)`,
		user, l.kind, l.share, secs, l.limit).Scan(&got, &window, &dbNow)
	if err != nil {
		return 0, time.Time{}, time.Time{}, err
	}
	// The window ends window+length by the database's clock; carry it over
	// to this replica's clock through the offset seen now.
	end = asked.Add(window.Add(l.window).Sub(dbNow))
	return got, window, end, nil
}

// pruneLocked drops the shares of windows that have ended, so the map
// holds only active users.
func (l *Limiter) pruneLocked(now time.Time) {
	for u, s := range l.shares {
		if !now.Before(s.end) {
			delete(l.shares, u)
		}
	}
}

// PruneRateLimits deletes the counts of windows that ended before the
// given time; the heartbeat calls it now and then.
func (db *DB) PruneRateLimits(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.pool.ExecContext(ctx, `DELETE FROM rate_limits WHERE window_start < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("pruning rate-limit counts: %w", err)
	}
	return res.RowsAffected()
}
