package agent_test

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// nopHistory forgets everything, so the benchmark measures the loop and
// not a growing conversation.
type nopHistory struct{}

func (nopHistory) ListMessages(context.Context, string, store.MessageFilter) ([]store.Message, error) {
	return nil, nil
}

func (nopHistory) AppendMessages(_ context.Context, _ string, msgs ...store.Message) ([]store.Message, error) {
	return msgs, nil
}

// BenchmarkTurn measures the loop's own overhead for one user turn with
// one tool call: two answers of an instant model, one in-process tool.
func BenchmarkTurn(b *testing.B) {
	callTurn := llmtest.Events(llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: "c1", Name: "echo", ArgChunks: []string{`{"x":1}`}}}})
	textTurn := llmtest.Events(llmtest.Turn{Text: []string{"done"}})
	var n int
	instant := providerFunc(func(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
		evs := textTurn
		if n%2 == 0 {
			evs = callTurn
		}
		n++
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
		}
	})
	e := newEnv(b, nil, func(o *envOptions) {
		o.History = nopHistory{}
		o.Audit, o.Usage, o.Agents = nil, nil, nil
	})
	e.resolve = func(string) (agent.Model, error) { return agent.Model{Name: "instant", Provider: instant}, nil }
	e.setTools(tool("echo", readOnly, nil))
	req := &agent.Request{ConversationID: "c1", Message: "go", RunID: "r"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range e.rt.Run(ctx, req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// providerFunc is an llm.Provider that is a function; the benchmark's
// model, which records nothing.
type providerFunc func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error]

func (f providerFunc) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return f(ctx, req)
}

// BenchmarkTurnLargeCatalogue is one user turn over the toolbench catalogue
// (506 tools): an instant model answers at once. With the default budget
// the runtime ranks the catalogue and offers 40 tools; with budget -1 it
// offers all 506. The difference is what deferring costs per turn.
func BenchmarkTurnLargeCatalogue(b *testing.B) {
	reg, _ := loadToolbench(b)
	textTurn := llmtest.Events(llmtest.Turn{Text: []string{"done"}})
	instant := providerFunc(func(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range textTurn {
				if !yield(ev, nil) {
					return
				}
			}
		}
	})
	for _, budget := range []int{agent.DefaultToolBudget, -1} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			rt := agent.New(func(string) (agent.Model, error) { return agent.Model{Name: "instant", Provider: instant}, nil },
				reg, gate.New(nil), &agent.Options{History: nopHistory{}, ToolBudget: budget})
			req := &agent.Request{ConversationID: "c1", Message: "Kill the lights in the living room", RunID: "r"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				for _, err := range rt.Run(ctx, req) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
