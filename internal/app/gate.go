package app

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/tools"
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
		cfg := a.config()
		sh := a.replicas()
		a.toolCalls.set(cfg.RateLimits.ToolCallsPerMinute, func(n int) gate.Limiter { return toolCallLimiter(sh, n) })
		a.gate = gate.New(&gate.Options{
			Limiter: &a.toolCalls,
			Policy:  policy(cfg.Approvals),
			Audit:   st,
			Logger:  a.logger.With(logKeyComponent, "gate"),
			// Counted here, once per call, whichever surface made it.
			Observe: func(tool, server, outcome string, d time.Duration) {
				a.meter().ObserveToolCall(tool, server, outcome, d)
			},
		})
		// Published before the configuration is read again: a reload
		// either finds the gate or has stored its configuration already.
		a.gateBuilt.Store(a.gate)
		a.gate.SetPolicy(policy(a.config().Approvals))
	})
	return a.gate, nil
}

// toolCallLimiter maps the per-minute tool-call limit (0 = unlimited),
// with a burst of a tenth of a minute's worth, to a count in PostgreSQL
// that every replica shares, to in-process token buckets for SQLite (one
// process), or to no limiter.
func toolCallLimiter(sh *replicas, perMinute int) gate.Limiter {
	if perMinute <= 0 {
		return nil
	}
	rate, burst := float64(perMinute)/60, max(1, perMinute/6)
	if sh != nil {
		return sh.limiter("tool calls", rate, burst)
	}
	return gate.NewBuckets(rate, burst, nil)
}

// CallLocal calls the catalogue tool name for the local user at the
// terminal (`switchboard call`), through the gate like every surface: the
// rate limit, the approval policy and the audit trail (user "local",
// agent "cli"). A tool the policy denies is refused with a *gate.Refusal;
// one it asks about runs, recorded as approved: the person typed this exact
// call at the terminal, as a run started with --yes.
func (a *App) CallLocal(ctx context.Context, name string, req *tools.CallRequest) (*tools.Result, error) {
	g, err := a.Gate(ctx)
	if err != nil {
		return nil, err
	}
	local := gate.Local(gate.LocalUser)
	sf := &gate.Surface{Catalog: a.registry, Agent: "cli", Asking: gate.AskTerminal}
	out := g.Call(ctx, sf, &gate.Request{Caller: &local, Name: name, Arguments: req.Arguments, Progress: req.Progress})
	if errors.Is(out.Err, gate.ErrUnknownTool) {
		return a.registry.Call(ctx, name, req) // the registry's not-found error, which names the tools
	}
	return out.Result, out.Err
}

// builtGate is the gate if Gate has built it, nil otherwise.
func (a *App) builtGate() *gate.Gate { return a.gateBuilt.Load() }
