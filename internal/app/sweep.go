package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// SweepInterval is how often a serving replica looks for replicas that
// stopped without finishing their work (killed, or cut from the database):
// their running tool calls are marked interrupted, their runs too, and
// their pending approvals expired. A replica's liveness is its database
// session (an advisory lock), which PostgreSQL drops as soon as the
// process dies, so the bound is this interval plus the time PostgreSQL
// takes to notice the lost connection (at once for a killed process; TCP
// keepalive settings for a vanished host).
const SweepInterval = 5 * time.Second

// RunRetention is how long a finished run's events are kept for
// re-attaching to it; the conversation and the audit trail keep what
// happened for good.
const RunRetention = 24 * time.Hour

// sweeper is the part of the store the sweep works on.
type sweeper interface {
	InterruptRunning(ctx context.Context) (int64, error)
	store.RunLog
}

// sweep runs one pass; failures are logged and tried again next pass.
func sweep(ctx context.Context, st sweeper, sh *replicas, logger *slog.Logger) {
	if n, err := st.InterruptRunning(ctx); err != nil {
		logger.WarnContext(ctx, "marking the calls of stopped replicas interrupted", logKeyErr, err)
	} else if n > 0 {
		logger.WarnContext(ctx, "tool calls of a stopped replica interrupted", logKeyCount, n)
	}
	if runs, approvals, err := st.InterruptRuns(ctx); err != nil {
		logger.WarnContext(ctx, "interrupting the runs of stopped replicas", logKeyErr, err)
	} else if runs+approvals > 0 {
		logger.WarnContext(ctx, "runs of a stopped replica interrupted and its approvals expired", logKeyCount, runs, logKeyApprovals, approvals)
	}
	if p, ok := st.(interface {
		PruneRuns(ctx context.Context, before time.Time) (int64, error)
	}); ok {
		if _, err := p.PruneRuns(ctx, time.Now().Add(-RunRetention)); err != nil {
			logger.WarnContext(ctx, "pruning the events of old runs", logKeyErr, err)
		}
	}
	if sh != nil {
		if _, err := sh.pruneLimits(ctx, time.Now().Add(-time.Hour)); err != nil {
			logger.WarnContext(ctx, "pruning rate-limit counts", logKeyErr, err)
		}
	}
}

// runSweeps sweeps every interval until ctx ends. Its caller owns it:
// cancel ctx and wait for it to return.
func runSweeps(ctx context.Context, st sweeper, sh *replicas, interval time.Duration, logger *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sweep(ctx, st, sh, logger)
		}
	}
}

// sweepInterval is SweepInterval, or the test's override.
func (a *App) sweepInterval() time.Duration {
	if a.sweepEvery > 0 {
		return a.sweepEvery
	}
	return SweepInterval
}
