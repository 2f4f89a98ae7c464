package agent_test

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Example runs one turn: the model calls a read-only tool (allowed by the
// default policy), then answers from its result.
func Example() {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{
		tool("current_time", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
			return tools.TextResult("09:30"), nil
		}),
	})
	model := llmtest.NewFakeProvider(calls("c1", "current_time", `{}`), say("It is ", "09:30."))
	models := func(string) (agent.Model, error) { return agent.Model{Name: "default", Provider: model}, nil }
	rt := agent.New(models, reg, gate.New(nil), nil)
	for ev, err := range rt.Run(context.Background(), &agent.Request{ConversationID: "demo", Message: "What time is it?"}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Kind {
		case agent.EventText:
			fmt.Printf("text %q\n", ev.Text)
		case agent.EventToolStart:
			fmt.Println("calling", ev.Call.Name, "on", ev.Call.Server)
		case agent.EventToolEnd:
			fmt.Println("result", ev.Result.Outcome, ev.Result.Text)
		case agent.EventDone:
			fmt.Println("done:", ev.Done.StopReason, ev.Done.ToolCalls, "tool call")
		}
	}
	// Output:
	// calling current_time on builtin
	// result ok 09:30
	// text "It is "
	// text "09:30."
	// done: end_turn 1 tool call
}
