package app

import (
	"context"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/gate"
)

// liveLimiter is a rate limit that a reload replaces: the gate and the
// HTTP server hold it for their lifetime, and each Allow asks the limiter
// of the configuration applied last. A nil one (limit 0) allows all.
type liveLimiter struct {
	cur atomic.Pointer[limiterAt]
}

// limiterAt is one limiter and the per-minute figure it was built for, so
// that a reload that leaves the figure alone keeps the counts.
type limiterAt struct {
	perMinute int
	l         gate.Limiter
}

func (l *liveLimiter) Allow(ctx context.Context, user, what string) error {
	if c := l.cur.Load(); c != nil && c.l != nil {
		return c.l.Allow(ctx, user, what)
	}
	return nil
}

// set makes perMinute the limit, building a new limiter only when the
// figure changed: the counts so far are kept otherwise.
func (l *liveLimiter) set(perMinute int, build func(int) gate.Limiter) {
	if c := l.cur.Load(); c != nil && c.perMinute == perMinute {
		return
	}
	l.cur.Store(&limiterAt{perMinute: perMinute, l: build(perMinute)})
}

var _ gate.Limiter = (*liveLimiter)(nil)

// requestLimiter maps the per-minute request limit (0 = unlimited) as
// toolCallLimiter does tool calls.
func requestLimiter(sh *replicas, perMinute int) gate.Limiter {
	lim := limits(perMinute)
	if perMinute <= 0 {
		return nil
	}
	if sh != nil {
		return sh.limiter("requests", lim.Requests, lim.RequestBurst)
	}
	return gate.NewBuckets(lim.Requests, lim.RequestBurst, nil)
}

// agentLimits are the runtime's limits of cfg.
func agentLimits(cfg *config.Config) agent.Limits {
	return agent.Limits{
		ToolCallsPerTurn:  cfg.Limits.ToolCallsPerTurn,
		ParallelToolCalls: cfg.Limits.ParallelToolCalls,
		CallTimeout:       cfg.Limits.CallTimeout,
		TurnTimeout:       cfg.Limits.TurnTimeout,
		ApprovalTimeout:   cfg.Approvals.Timeout,
	}
}

// applyPolicies makes the approval policy, the rate limits and the agent
// limits of cfg the ones calls and turns start with from now on: a call
// already decided, and a turn in flight, keep what they began with. The
// gate and runtime that do not exist yet are built from the configuration
// applied last, so they start with cfg anyway.
func (a *App) applyPolicies(cfg *config.Config) {
	sh := a.replicas()
	a.toolCalls.set(cfg.RateLimits.ToolCallsPerMinute, func(n int) gate.Limiter { return toolCallLimiter(sh, n) })
	a.requests.set(cfg.RateLimits.RequestsPerMinute, func(n int) gate.Limiter { return requestLimiter(sh, n) })
	if g := a.builtGate(); g != nil {
		g.SetPolicy(policy(cfg.Approvals))
	}
	if rt := a.builtRuntime(); rt != nil {
		rt.SetLimits(agentLimits(cfg))
	}
}
