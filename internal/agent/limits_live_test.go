package agent_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestSetLimitsLeavesTurnInFlight lowers the tool-call budget while a turn
// runs: that turn keeps the budget it started with (3 calls), and the next
// turn gets the new one (1 call).
func TestSetLimitsLeavesTurnInFlight(t *testing.T) {
	fake := llmtest.NewFakeProvider(
		calls("c1", "echo", `{}`),
		calls("c2", "echo", `{}`, "c3", "echo", `{}`),
		say("done"),
	)
	e := newEnv(t, fake, func(o *envOptions) { o.Limits.ToolCallsPerTurn = 3 })
	lowered := false
	e.setTools(tool("echo", readOnly, func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
		if !lowered {
			lowered = true // the tools of one turn run one after the other here
			e.rt.SetLimits(agent.Limits{ToolCallsPerTurn: 1})
		}
		return echo(ctx, req)
	}))
	evs := e.mustRun(t, &agent.Request{Message: "three calls"})
	if d := last(evs); d.Kind != agent.EventDone || d.Done.ToolCalls != 3 || d.Done.StopReason == agent.StopLimit {
		t.Fatalf("turn in flight: last event = %+v; want 3 calls under the budget it started with", d.Done)
	}

	fake.Push(calls("c4", "echo", `{}`, "c5", "echo", `{}`))
	evs = e.mustRun(t, &agent.Request{Message: "two more"})
	if d := last(evs); d.Kind != agent.EventDone || d.Done.StopReason != agent.StopLimit || d.Done.ToolCalls != 1 {
		t.Errorf("next turn: last event = %+v; want it stopped at the new budget of 1", d.Done)
	}
}
