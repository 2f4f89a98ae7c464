package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestToolFailuresGoBackToTheModel checks that every kind of failed call
// reaches the model as a tool-error result, and the model recovers.
func TestToolFailuresGoBackToTheModel(t *testing.T) {
	failing := tool("lookup", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		return tools.ErrorResult("no such record: 42"), nil
	})
	strict := &tools.Func{Spec: tools.Info{Name: "strict", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), Annotations: readOnly}, Run: echo}
	gone := tool("gone", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		return nil, tools.ErrUnavailable
	})
	tests := []struct {
		name, call, args string
		wantOutcome      store.Outcome
		wantText         string
	}{
		{"tool error", "lookup", `{}`, store.OutcomeToolError, "no such record: 42"},
		{"invalid arguments", "strict", `{"n":"x"}`, store.OutcomeToolError, "invalid arguments for strict"},
		{"unknown tool", "nosuch", `{}`, store.OutcomeError, `there is no tool named "nosuch"`},
		{"unavailable", "gone", `{}`, store.OutcomeError, "gone is unavailable right now"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := llmtest.NewFakeProvider(calls("c1", tc.call, tc.args), say("Sorry, that failed; I recovered."))
			e := newEnv(t, fake, nil)
			e.setTools(failing, strict, gone)
			evs := e.mustRun(t, &agent.Request{Message: "do it"})

			ends := find(evs, agent.EventToolEnd)
			if len(ends) != 1 || ends[0].Result.Outcome != tc.wantOutcome || !ends[0].Result.IsError || !strings.Contains(ends[0].Result.Text, tc.wantText) {
				t.Fatalf("tool end events = %+v", ends)
			}
			got := toolMessages(fake.Requests(), 1)
			if len(got) != 1 || !got[0].IsError || got[0].ToolCallID != "c1" || !strings.Contains(got[0].Text(), tc.wantText) {
				t.Errorf("tool messages sent to the model = %+v", got)
			}
			if got := text(evs); got != "Sorry, that failed; I recovered." {
				t.Errorf("answer = %q", got)
			}
			if d := last(evs); d.Kind != agent.EventDone || d.Done.StopReason != agent.StopEndTurn || d.Done.ToolCalls != 1 {
				t.Errorf("last event = %+v", d)
			}
			recs := e.audit.all()
			if tc.call == "nosuch" {
				// A name no tool has is not recorded, on every surface
				// (see gate.Gate.Call): a caller may send any name.
				if len(recs) != 0 {
					t.Errorf("audit of an unknown tool = %+v, want none", recs)
				}
				return
			}
			if len(recs) != 1 || recs[0].Res.Outcome != tc.wantOutcome || recs[0].Rec.Tool != tc.call {
				t.Errorf("audit = %+v", recs)
			}
		})
	}
}

// TestHistoryIsPersistedInOrder checks the stored conversation of a turn
// with a tool call, and that the next turn's request carries it.
func TestHistoryIsPersistedInOrder(t *testing.T) {
	fake := llmtest.NewFakeProvider(calls("c1", "echo", `{"x":1}`), say("done"), say("again"))
	e := newEnv(t, fake, nil)
	e.setTools(tool("echo", readOnly, nil))
	e.mustRun(t, &agent.Request{Message: "first", RunID: "r1"})
	e.mustRun(t, &agent.Request{Message: "second", RunID: "r2"})

	reqs := fake.Requests()
	var roles []string
	for _, m := range reqs[2].Messages {
		roles = append(roles, string(m.Role)+":"+m.Text())
	}
	want := []string{"user:first", "assistant:", `tool:{"x":1}`, "assistant:done", "user:second"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("third request's messages mismatch (-want +got):\n%s", diff)
	}
	if reqs[0].Model != "main-id" || len(reqs[0].Tools) == 0 || reqs[0].Tools[0].Name != "echo" {
		t.Errorf("first request = %+v", reqs[0])
	}
}

// TestParallelCallsAreBounded runs six calls with a limit of two and
// checks that at most two ran at once and results keep the call order.
func TestParallelCallsAreBounded(t *testing.T) {
	var (
		mu       sync.Mutex
		cur, top int
		release  = make(chan struct{})
		once     sync.Once
	)
	slow := tool("work", readOnly, func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
		mu.Lock()
		cur++
		top = max(top, cur)
		if cur == 2 {
			once.Do(func() { close(release) })
		}
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		mu.Lock()
		cur--
		mu.Unlock()
		return tools.TextResult(string(req.Arguments)), nil
	})
	var script []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		script = append(script, id, "work", `{"id":"`+id+`"}`)
	}
	fake := llmtest.NewFakeProvider(calls(script...), say("ok"))
	e := newEnv(t, fake, func(o *envOptions) { o.Limits.ParallelToolCalls = 2 })
	e.setTools(slow)
	e.mustRun(t, &agent.Request{Message: "go"})

	if top != 2 {
		t.Errorf("max concurrency = %d, want 2", top)
	}
	var got []string
	for _, m := range toolMessages(fake.Requests(), 1) {
		got = append(got, m.ToolCallID+"="+m.Text())
	}
	want := []string{`a={"id":"a"}`, `b={"id":"b"}`, `c={"id":"c"}`, `d={"id":"d"}`, `e={"id":"e"}`, `f={"id":"f"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results mismatch (-want +got):\n%s", diff)
	}
}

// TestToolCallLimit ends a turn whose model keeps calling tools.
func TestToolCallLimit(t *testing.T) {
	fake := llmtest.NewFakeProvider(
		calls("c1", "echo", `{}`, "c2", "echo", `{}`),
		calls("c3", "echo", `{}`, "c4", "echo", `{}`),
	)
	e := newEnv(t, fake, func(o *envOptions) { o.Limits.ToolCallsPerTurn = 3 })
	e.setTools(tool("echo", readOnly, nil))
	evs := e.mustRun(t, &agent.Request{Message: "loop"})

	errs := find(evs, agent.EventError)
	if len(errs) != 1 || errs[0].Error.Code != agent.CodeToolCallLimit {
		t.Fatalf("error events = %+v", errs)
	}
	if got := text(evs); !strings.Contains(got, "limit") {
		t.Errorf("final text %q does not explain the limit", got)
	}
	d := last(evs)
	if d.Kind != agent.EventDone || d.Done.StopReason != agent.StopLimit || d.Done.ToolCalls != 3 {
		t.Errorf("last event = %+v", d)
	}
	if recs := e.audit.all(); len(recs) != 4 || recs[3].Res.Outcome != store.OutcomeDenied {
		t.Errorf("audit = %+v; want the skipped call recorded as denied", recs)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("model asked %d times, want 2", n)
	}
	// The conversation stays valid: every call has a result, then the
	// final text.
	fake.Push(say("fine"))
	e.mustRun(t, &agent.Request{Message: "continue"})
	msgs := fake.Requests()[2].Messages
	if got := toolResultsFor(msgs); got != 4 {
		t.Errorf("next turn sees %d tool results, want 4", got)
	}
}

func toolResultsFor(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

// TestModelFailureEndsWithError checks that a provider error ends the
// stream with that error.
func TestModelFailureEndsWithError(t *testing.T) {
	boom := errors.New("endpoint down")
	fake := llmtest.NewFakeProvider(llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"partial"}}, Err: boom})
	e := newEnv(t, fake, nil)
	evs, err := e.run(t, &agent.Request{Message: "hi"})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if text(evs) != "partial" {
		t.Errorf("text = %q", text(evs))
	}
}

// TestBadRequests checks that bad input is an error, not a panic.
func TestBadRequests(t *testing.T) {
	e := newEnv(t, llmtest.NewFakeProvider(), nil)
	for _, req := range []*agent.Request{nil, {Message: "x"}, {ConversationID: "c"}, {ConversationID: "c", Message: "x", Agent: "nobody"}} {
		var err error
		for _, e := range e.rt.Run(t.Context(), req) {
			err = e
		}
		if err == nil {
			t.Errorf("request %+v: no error", req)
		}
	}
}

func TestRunOnce(t *testing.T) {
	e := newEnv(t, llmtest.NewFakeProvider(say("hi")), nil)
	seq := e.rt.Run(t.Context(), &agent.Request{ConversationID: "c1", Message: "hello"})
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	for _, e := range seq {
		err = e
	}
	if !errors.Is(err, agent.ErrRunReused) {
		t.Errorf("second range: err = %v, want ErrRunReused", err)
	}
}
