package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// glamour highlights code blocks with chroma, whose regexp2 runs
		// a shared clock goroutine for match timeouts; it stops by itself
		// once no match has used it for a while.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
	)
}

// decision is one recorded Decide call.
type decision struct {
	ID       string
	Decision agent.Decision
}

// fakeBackend is a hand-written Backend: each method calls its function
// field, and Decide calls are recorded.
type fakeBackend struct {
	run     func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error]
	decide  func(ctx context.Context, id string, d agent.Decision) error
	tools   []tools.Entry
	servers []ServerLine
	agents  []store.Agent
	history map[string][]store.Message

	mu        sync.Mutex
	decisions []decision      // guarded by mu
	requests  []agent.Request // guarded by mu
}

func (f *fakeBackend) Run(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
	f.mu.Lock()
	f.requests = append(f.requests, *req)
	f.mu.Unlock()
	return f.run(ctx, req)
}

func (f *fakeBackend) Decide(ctx context.Context, id string, d agent.Decision) error {
	f.mu.Lock()
	f.decisions = append(f.decisions, decision{id, d})
	f.mu.Unlock()
	if f.decide != nil {
		return f.decide(ctx, id, d)
	}
	return nil
}

func (f *fakeBackend) Tools() []tools.Entry  { return f.tools }
func (f *fakeBackend) Servers() []ServerLine { return f.servers }
func (f *fakeBackend) Agents(context.Context) ([]store.Agent, error) {
	return f.agents, nil
}

func (f *fakeBackend) History(_ context.Context, id string) ([]store.Message, error) {
	return f.history[id], nil
}

func (f *fakeBackend) recorded() ([]decision, []agent.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]decision(nil), f.decisions...), append([]agent.Request(nil), f.requests...)
}

// script returns a run function that yields evs, then err when not nil.
func script(err error, evs ...agent.Event) func(context.Context, *agent.Request) iter.Seq2[agent.Event, error] {
	return func(ctx context.Context, _ *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
			if err != nil {
				yield(agent.Event{}, err)
			}
		}
	}
}

// Event constructors for scripts.

func text(s string) agent.Event { return agent.Event{Kind: agent.EventText, Text: s} }

func done() agent.Event {
	return agent.Event{Kind: agent.EventDone, Done: &agent.Done{StopReason: agent.StopEndTurn}}
}

func call(id, name, args string) *agent.CallInfo {
	return &agent.CallInfo{ID: id, Name: name, Server: "builtin", Arguments: json.RawMessage(args)}
}

func toolStart(c *agent.CallInfo) agent.Event {
	return agent.Event{Kind: agent.EventToolStart, Call: c}
}

func toolEnd(c *agent.CallInfo, o store.Outcome, txt string, d time.Duration) agent.Event {
	return agent.Event{Kind: agent.EventToolEnd, Call: c, Result: &agent.CallResult{Outcome: o, Text: txt, IsError: o != store.OutcomeOK, Duration: d}}
}

func approval(id, tool string) agent.Event {
	return agent.Event{Kind: agent.EventApproval, Approval: &store.Approval{ID: id, Tool: tool, State: store.ApprovalPending}}
}

// runtimeBackend is a Backend on a real agent.Runtime with a scripted
// model and one destructive tool, "write", that needs approval.
type runtimeBackend struct {
	*agent.Runtime
	model *llmtest.FakeProvider
	reg   *tools.Registry
	// writes counts the calls that reached the tool.
	mu     sync.Mutex
	writes int
}

func newRuntimeBackend(replies ...llmtest.FakeReply) *runtimeBackend {
	rb := &runtimeBackend{model: llmtest.NewFakeProvider(replies...), reg: tools.NewRegistry(nil)}
	write := &tools.Func{
		Spec: tools.Info{Name: "write", Description: "writes a file", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &tools.Annotations{}},
		Run: func(context.Context, *tools.CallRequest) (*tools.Result, error) {
			rb.mu.Lock()
			rb.writes++
			rb.mu.Unlock()
			return tools.TextResult("written"), nil
		},
	}
	rb.reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{write})
	models := func(string) (agent.Model, error) { return agent.Model{Name: "main", Provider: rb.model}, nil }
	rb.Runtime = agent.New(models, rb.reg, gate.New(nil), nil)
	return rb
}

func (rb *runtimeBackend) Tools() []tools.Entry  { return rb.reg.List() }
func (rb *runtimeBackend) Servers() []ServerLine { return nil }
func (rb *runtimeBackend) Agents(context.Context) ([]store.Agent, error) {
	return nil, nil
}

func (rb *runtimeBackend) History(context.Context, string) ([]store.Message, error) {
	return nil, nil
}

func (rb *runtimeBackend) writeCount() int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.writes
}

// say scripts a text answer; writeCall scripts a call of "write".
func say(parts ...string) llmtest.FakeReply {
	return llmtest.FakeReply{Turn: llmtest.Turn{Text: parts}}
}

func writeCall(id, args string) llmtest.FakeReply {
	return llmtest.FakeReply{Turn: llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: id, Name: "write", ArgChunks: []string{args}}}}}
}

var errUnreachable = errors.New("calling model: dial tcp 127.0.0.1:1: connect: connection refused")

// waitFor polls cond until it holds or the deadline passes.
// show, when given, returns what to print on failure.
func waitFor(t *testing.T, what string, cond func() bool, show ...func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			var seen string
			for _, s := range show {
				seen += s()
			}
			t.Fatalf("timed out waiting for %s; saw:\n%q", what, seen)
		}
		time.Sleep(time.Millisecond)
	}
}

var _ = fmt.Sprint
