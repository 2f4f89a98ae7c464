package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// blocking is a tool that waits for its context to end and reports that
// it saw it.
func blocking(name string, saw chan<- error) *tools.Func {
	return tool(name, readOnly, func(ctx context.Context, _ *tools.CallRequest) (*tools.Result, error) {
		<-ctx.Done()
		if saw != nil {
			saw <- ctx.Err()
		}
		return nil, ctx.Err()
	})
}

// TestTimeLimits checks that each time limit ends the turn with an error
// event, a final text and done, never silently.
func TestTimeLimits(t *testing.T) {
	tests := []struct {
		name     string
		script   []llmtest.FakeReply
		limits   agent.Limits
		wantCode agent.ErrorCode
		wantText string
		wantOut  store.Outcome // audit outcome of the call, if any
	}{
		{
			name:     "call timeout",
			script:   []llmtest.FakeReply{calls("c1", "hang", `{}`)},
			limits:   agent.Limits{CallTimeout: 2 * time.Second},
			wantCode: agent.CodeCallTimeout, wantText: "did not answer within 2s", wantOut: store.OutcomeTimeout,
		},
		{
			name:     "turn timeout in the model",
			script:   []llmtest.FakeReply{{Turn: llmtest.Turn{Text: []string{"thinking..."}}, Block: true}},
			limits:   agent.Limits{TurnTimeout: time.Minute},
			wantCode: agent.CodeTurnTimeout, wantText: "longer than its limit of 1m0s",
		},
		{
			name:     "turn timeout in a tool",
			script:   []llmtest.FakeReply{calls("c1", "hang", `{}`)},
			limits:   agent.Limits{TurnTimeout: time.Minute, CallTimeout: time.Hour},
			wantCode: agent.CodeTurnTimeout, wantText: "longer than its limit", wantOut: store.OutcomeCancelled,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, llmtest.NewFakeProvider(tc.script...), func(o *envOptions) { o.Limits = tc.limits })
				e.setTools(blocking("hang", nil))
				evs := e.mustRun(t, &agent.Request{Message: "go"})

				errs := find(evs, agent.EventError)
				if len(errs) != 1 || errs[0].Error.Code != tc.wantCode {
					t.Fatalf("error events = %+v", errs)
				}
				if got := text(evs); !strings.Contains(got, tc.wantText) {
					t.Errorf("text %q does not contain %q", got, tc.wantText)
				}
				if d := last(evs); d.Kind != agent.EventDone || d.Done.StopReason != agent.StopLimit {
					t.Errorf("last event = %+v", d)
				}
				recs := e.audit.all()
				if tc.wantOut != "" && (len(recs) != 1 || recs[0].Res.Outcome != tc.wantOut) {
					t.Errorf("audit = %+v, want outcome %s", recs, tc.wantOut)
				}
			})
		})
	}
}

// TestCancelReachesTool cancels the run while a tool runs: the tool sees
// the cancellation, the stream ends with context.Canceled, and the call is
// recorded as cancelled in history and audit.
func TestCancelReachesTool(t *testing.T) {
	saw := make(chan error, 1)
	fake := llmtest.NewFakeProvider(calls("c1", "hang", `{}`), say("next turn"))
	e := newEnv(t, fake, nil)
	e.setTools(blocking("hang", saw))

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var err error
	for ev, rerr := range e.rt.Run(ctx, &agent.Request{ConversationID: "c1", Message: "go"}) {
		if rerr != nil {
			err = rerr
			break
		}
		if ev.Kind == agent.EventToolStart {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stream error = %v, want context.Canceled", err)
	}
	if got := <-saw; !errors.Is(got, context.Canceled) {
		t.Errorf("tool saw %v", got)
	}
	if recs := e.audit.all(); len(recs) != 1 || recs[0].Res.Outcome != store.OutcomeCancelled {
		t.Errorf("audit = %+v", recs)
	}
	e.mustRun(t, &agent.Request{Message: "again"})
	res := toolMessages(fake.Requests(), 1)
	if len(res) != 1 || !strings.Contains(res[0].Text(), "cancelled") {
		t.Errorf("next turn sees tool results %+v", res)
	}
}

// TestBreakStopsRun stops ranging mid-tool: Run must cancel the tool and
// return before the range statement ends (goleak checks the rest).
func TestBreakStopsRun(t *testing.T) {
	saw := make(chan error, 1)
	e := newEnv(t, llmtest.NewFakeProvider(calls("c1", "hang", `{}`)), nil)
	e.setTools(blocking("hang", saw))
	for ev := range e.rt.Run(t.Context(), &agent.Request{ConversationID: "c1", Message: "go"}) {
		if ev.Kind == agent.EventToolStart {
			break
		}
	}
	select {
	case err := <-saw:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("tool saw %v", err)
		}
	default:
		t.Fatal("Run returned before the tool was cancelled")
	}
}
