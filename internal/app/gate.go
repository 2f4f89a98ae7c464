package app

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/gate"
)

// Gate returns the one enforcement path of tool calls (see package gate),
// built on first use: the tools API, chat completions, agent runs and the
// MCP gateway over HTTP and stdio all take it, so a user's permissions,
// tool-call limit, approval policy and audit trail are the same whichever
// way a tool is reached.
func (a *App) Gate(ctx context.Context) (*gate.Gate, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	a.gateOnce.Do(func() {
		a.gate = gate.New(&gate.Options{
			Limiter: toolCallLimiter(a.cfg.RateLimits.ToolCallsPerMinute),
			Policy:  policy(a.cfg.Approvals),
			Audit:   st,
			Logger:  a.logger.With(logKeyComponent, "gate"),
		})
	})
	return a.gate, nil
}

// toolCallLimiter maps the per-minute tool-call limit (0 = unlimited) to
// in-process token buckets with a burst of a tenth of a minute's worth,
// or to no limiter.
func toolCallLimiter(perMinute int) gate.Limiter {
	if perMinute <= 0 {
		return nil
	}
	return gate.NewBuckets(float64(perMinute)/60, max(1, perMinute/6), nil)
}
