package agent_test

import (
	"context"
	"iter"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
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
	e := newEnv(b, nil, func(o *agent.Options) {
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
