package chat

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestRunOnceScripted(t *testing.T) {
	read := call("c1", "files__read", `{ "path": "README.md" }`)
	rm := call("c2", "builtin__terminal", `{"cmd":"rm -rf /tmp/x"}`)
	tests := []struct {
		name       string
		yes        bool
		err        error
		events     []agent.Event
		wantCode   int
		wantOut    string
		wantErr    string
		wantDecide []decision
	}{
		{
			name:     "text streams to stdout",
			events:   []agent.Event{text("Hello"), text(", world"), done()},
			wantOut:  "Hello, world\n",
			wantCode: 0,
		},
		{
			name: "tool lines go to stderr",
			events: []agent.Event{
				{Kind: agent.EventRouter, Router: &agent.RouterDecision{NeedsTools: true}},
				text("Let me look."),
				toolStart(read),
				toolEnd(read, store.OutcomeOK, "# Title", 12*time.Millisecond),
				text("It has a title."),
				done(),
			},
			wantOut: "Let me look.\n\nIt has a title.\n",
			wantErr: "· router: tools needed\n" +
				"✓ files__read {\"path\":\"README.md\"}: ok (12ms)\n",
		},
		{
			name: "context note goes to stderr",
			events: []agent.Event{
				{Kind: agent.EventContext, Text: "To fit the model's context window, 2 older message(s) were left out of this request; the conversation keeps them in full."},
				text("Hi."),
				done(),
			},
			wantOut: "Hi.\n",
			wantErr: "· To fit the model's context window, 2 older message(s) were left out of this request; the conversation keeps them in full.\n",
		},
		{
			name: "approval denied without --yes",
			events: []agent.Event{
				approval("a1", "builtin__terminal"),
				toolEnd(rm, store.OutcomeDenied, "the user declined this call: "+denyReason, 0),
				text("I could not run it."),
				done(),
			},
			wantOut: "I could not run it.\n",
			wantErr: "✗ builtin__terminal needs approval: denied (" + denyReason + ")\n" +
				"✗ builtin__terminal {\"cmd\":\"rm -rf /tmp/x\"}: denied: the user declined this call: " + denyReason + "\n",
			wantDecide: []decision{{ID: "a1", Decision: agent.Decision{Kind: agent.Deny, Reason: denyReason, By: "ann"}}},
		},
		{
			name: "approval approved with --yes",
			yes:  true,
			events: []agent.Event{
				approval("a1", "builtin__terminal"),
				toolStart(rm),
				toolEnd(rm, store.OutcomeOK, "", 1500*time.Millisecond),
				text("Done."),
				done(),
			},
			wantOut:    "Done.\n",
			wantErr:    "✓ builtin__terminal {\"cmd\":\"rm -rf /tmp/x\"}: ok (1.5s)\n",
			wantDecide: []decision{{ID: "a1", Decision: agent.Decision{Kind: agent.ApproveOnce, Reason: "approved with --yes", By: "ann"}}},
		},
		{
			name: "handoff",
			events: []agent.Event{
				{Kind: agent.EventHandoff, Handoff: &agent.Handoff{From: "", To: "bob"}},
				{Kind: agent.EventText, Agent: "bob", Text: "Mail sent.\n"},
				{Kind: agent.EventHandoff, Agent: "bob", Handoff: &agent.Handoff{From: "bob", To: "", Back: true}},
				done(),
			},
			wantOut: "Mail sent.\n",
			wantErr: "→ assistant hands this to @bob\n→ @bob answered; back to assistant\n",
		},
		{
			name:     "model unreachable",
			err:      errUnreachable,
			wantCode: 1,
			wantErr:  "switchboard: " + errUnreachable.Error() + "\n",
		},
		{
			name: "limit hit",
			events: []agent.Event{
				text("Partial"),
				{Kind: agent.EventError, Error: &agent.RunError{Code: agent.CodeToolCallLimit, Message: "I stopped: too many tool calls."}},
				text("I stopped: too many tool calls."),
				{Kind: agent.EventDone, Done: &agent.Done{StopReason: agent.StopLimit}},
			},
			wantCode: 1,
			wantOut:  "Partial\n",
			wantErr:  "switchboard: I stopped: too many tool calls.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &fakeBackend{run: script(tt.err, tt.events...)}
			var out, errw bytes.Buffer
			code := RunOnce(t.Context(), fb, "do it", &Options{ConversationID: "conv", User: "ann", Agent: "bob", Model: "fast", Yes: tt.yes, Stdout: &out, Stderr: &errw})
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, errw.String())
			}
			if diff := cmp.Diff(tt.wantOut, out.String()); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, errw.String()); diff != "" {
				t.Errorf("stderr mismatch (-want +got):\n%s", diff)
			}
			decisions, reqs := fb.recorded()
			if diff := cmp.Diff(tt.wantDecide, decisions); diff != "" {
				t.Errorf("Decide calls mismatch (-want +got):\n%s", diff)
			}
			wantReq := []agent.Request{{ConversationID: "conv", User: "ann", Role: store.RoleAdmin, Agent: "bob", Model: "fast", Message: "do it"}}
			if diff := cmp.Diff(wantReq, reqs); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunOnceNewConversationID(t *testing.T) {
	fb := &fakeBackend{run: script(nil, text("hi"), done())}
	var errw bytes.Buffer
	RunOnce(t.Context(), fb, "hello", &Options{NewConversationID: func() string { return "fresh" }, Stderr: &errw})
	_, reqs := fb.recorded()
	if len(reqs) != 1 || reqs[0].ConversationID != "fresh" {
		t.Fatalf("requests = %+v, want one in conversation fresh", reqs)
	}
	if diff := cmp.Diff("· conversation fresh (continue it with --conversation fresh)\n", errw.String()); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
}

func TestRunOnceEmptyPrompt(t *testing.T) {
	fb := &fakeBackend{run: script(nil, done())}
	var errw bytes.Buffer
	if code := RunOnce(t.Context(), fb, "  ", &Options{Stderr: &errw}); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if !strings.Contains(errw.String(), "prompt is empty") {
		t.Errorf("stderr = %q, want it to say the prompt is empty", errw.String())
	}
}

// TestRunOnceCancel cancels the context while the run waits, as Ctrl-C
// does: the run must see the cancellation and RunOnce must return 1.
func TestRunOnceCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	sawCancel := make(chan struct{})
	fb := &fakeBackend{run: func(ctx context.Context, _ *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			if !yield(text("thinking"), nil) {
				return
			}
			close(started)
			<-ctx.Done()
			close(sawCancel)
			yield(agent.Event{}, ctx.Err())
		}
	}}
	go func() {
		<-started
		cancel()
	}()
	var out, errw bytes.Buffer
	code := RunOnce(ctx, fb, "wait", &Options{Stdout: &out, Stderr: &errw})
	<-sawCancel
	if code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if diff := cmp.Diff("switchboard: cancelled\n", errw.String()); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("thinking\n", out.String()); diff != "" {
		t.Errorf("stdout mismatch (-want +got):\n%s", diff)
	}
}

// TestRunOnceRuntime runs RunOnce on a real agent runtime: without --yes
// the destructive tool is denied and never runs; with it, it runs.
func TestRunOnceRuntime(t *testing.T) {
	for _, yes := range []bool{false, true} {
		rb := newRuntimeBackend(writeCall("w1", `{"path":"a.txt"}`), say("All ", "done."))
		var out, errw bytes.Buffer
		code := RunOnce(t.Context(), rb, "write a.txt", &Options{ConversationID: "c", Yes: yes, Stdout: &out, Stderr: &errw})
		if code != 0 {
			t.Fatalf("yes=%v: exit code %d, stderr %q", yes, code, errw.String())
		}
		if diff := cmp.Diff("All done.\n", out.String()); diff != "" {
			t.Errorf("yes=%v: stdout mismatch (-want +got):\n%s", yes, diff)
		}
		wantWrites, wantLine := 0, "✗ write {\"path\":\"a.txt\"}: denied: the user declined this call: "+denyReason
		if yes {
			wantWrites, wantLine = 1, "✓ write {\"path\":\"a.txt\"}: ok ("
		}
		if got := rb.writeCount(); got != wantWrites {
			t.Errorf("yes=%v: tool ran %d times, want %d", yes, got, wantWrites)
		}
		if !strings.Contains(errw.String(), wantLine) {
			t.Errorf("yes=%v: stderr %q does not contain %q", yes, errw.String(), wantLine)
		}
	}
}

// failWriter fails every write, as a closed pipe does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("write |1: broken pipe") }

func TestRunOnceStdoutFails(t *testing.T) {
	fb := &fakeBackend{run: script(nil, text("hi"), done())}
	var errw bytes.Buffer
	if code := RunOnce(t.Context(), fb, "hello", &Options{ConversationID: "c", Stdout: failWriter{}, Stderr: &errw}); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if diff := cmp.Diff("switchboard: writing the answer: write |1: broken pipe\n", errw.String()); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
}
