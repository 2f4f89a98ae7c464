package chat

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestTUIStreamsAnswer(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, &Options{Agent: "bob", Model: "fast", User: "ann"})
	h.typeLine("hello there")
	h.pumpUntil("› hello there")
	h.event(text("The answer is "), "The answer is")
	h.event(text("**forty-two**."), "forty-two.")
	if strings.Contains(h.view(), "**") {
		t.Errorf("markdown was not rendered:\n%s", h.view())
	}
	h.event(done(), "forty-two.")
	close(h.feed)
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	_, reqs := fb.recorded()
	want := []agent.Request{{ConversationID: "conv1", User: "ann", Role: store.RoleAdmin, Agent: "bob", Model: "fast", Message: "hello there"}}
	if diff := cmp.Diff(want, reqs); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestTUIToolLine(t *testing.T) {
	h := newHarness(t, &fakeBackend{}, nil)
	h.typeLine("read it")
	c := call("c1", "files__read", `{"path":"a.txt"}`)
	h.event(toolStart(c), `files__read {"path":"a.txt"}`)
	line := lineWith(h.view(), "files__read")
	if !startsWithFrame(line) {
		t.Errorf("running tool line %q does not start with a spinner frame", line)
	}
	h.event(toolEnd(c, store.OutcomeOK, "hi", 1500*time.Millisecond), "✓ files__read")
	if diff := cmp.Diff(`✓ files__read {"path":"a.txt"}  1.5s`, lineWith(h.view(), "files__read")); diff != "" {
		t.Errorf("finished tool line mismatch (-want +got):\n%s", diff)
	}
	bad := call("c2", "files__rm", `{}`)
	h.event(toolStart(bad), "files__rm")
	h.event(toolEnd(bad, store.OutcomeToolError, "no such file", 3*time.Millisecond), "✗ files__rm")
	if v := h.view(); !strings.Contains(v, "tool error: no such file") || !strings.Contains(v, "✗ files__rm  3ms") {
		t.Errorf("failed tool line missing its outcome or duration:\n%s", v)
	}
	close(h.feed)
}

// lineWith returns the first line of view containing s, trimmed.
func lineWith(view, s string) string {
	for l := range strings.SplitSeq(view, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func startsWithFrame(line string) bool {
	for _, f := range spinner.Dot.Frames {
		if strings.HasPrefix(line, f) {
			return true
		}
	}
	return false
}

func TestTUIApproval(t *testing.T) {
	tests := []struct {
		name     string
		keys     []string
		wantNote string
		want     agent.Decision
	}{
		{name: "y approves once", keys: []string{"y"}, wantNote: "approved write once", want: agent.Decision{Kind: agent.ApproveOnce, By: "ann"}},
		{name: "a approves for the conversation", keys: []string{"a"}, wantNote: "approved write for this conversation", want: agent.Decision{Kind: agent.ApproveConversation, By: "ann"}},
		{name: "n denies with a reason", keys: []string{"n", "t", "o", "o", " ", "r", "i", "s", "k", "y", "enter"}, wantNote: "denied write", want: agent.Decision{Kind: agent.Deny, Reason: "too risky", By: "ann"}},
		{name: "n denies without a reason", keys: []string{"n", "enter"}, wantNote: "denied write", want: agent.Decision{Kind: agent.Deny, By: "ann"}},
		{name: "esc goes back, then y", keys: []string{"n", "esc", "y"}, wantNote: "approved write once", want: agent.Decision{Kind: agent.ApproveOnce, By: "ann"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &fakeBackend{}
			h := newHarness(t, fb, &Options{User: "ann"})
			h.typeLine("write a file")
			a := approval("ap1", "write")
			a.Approval.Arguments = []byte(`{"path":"a.txt"}`)
			h.event(a, "⚠ approve write")
			if !strings.Contains(h.view(), "for this conversation (later calls, any arguments) · n decline") {
				t.Fatalf("no approval choices shown:\n%s", h.view())
			}
			h.key("x") // not a choice: ignored
			for _, k := range tt.keys {
				h.key(k)
			}
			h.pumpUntil(tt.wantNote)
			if strings.Contains(h.view(), "⚠ approve") {
				t.Errorf("approval prompt still shown after deciding:\n%s", h.view())
			}
			got, _ := fb.recorded()
			if diff := cmp.Diff([]decision{{ID: "ap1", Decision: tt.want}}, got); diff != "" {
				t.Errorf("Decide calls mismatch (-want +got):\n%s", diff)
			}
			close(h.feed)
		})
	}
}

func TestTUIYesApprovesEverything(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, &Options{Yes: true})
	h.typeLine("go")
	h.event(approval("ap1", "write"), "approved write (--yes)")
	got, _ := fb.recorded()
	want := []decision{{ID: "ap1", Decision: agent.Decision{Kind: agent.ApproveOnce, Reason: "approved with --yes", By: "switchboard chat"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide calls mismatch (-want +got):\n%s", diff)
	}
	close(h.feed)
}

func TestTUIApprovalExpired(t *testing.T) {
	h := newHarness(t, &fakeBackend{}, nil)
	h.typeLine("go")
	h.event(approval("ap1", "write"), "⚠ approve write")
	h.event(agent.Event{Kind: agent.EventApprovalResolved, Approval: &store.Approval{ID: "ap1", Tool: "write", State: store.ApprovalExpired, Reason: "nobody decided in time"}}, "approval for write expired")
	if strings.Contains(h.view(), "⚠ approve") {
		t.Errorf("expired approval still shown:\n%s", h.view())
	}
	close(h.feed)
}

// TestTUIRuntimeApproval runs the model on a real agent runtime: the
// destructive tool waits for the inline approval, runs after "a", and
// runs again in the same conversation without asking.
func TestTUIRuntimeApproval(t *testing.T) {
	rb := newRuntimeBackend(
		writeCall("w1", `{"path":"a.txt"}`), say("Wrote a.txt."),
		writeCall("w2", `{"path":"b.txt"}`), say("Wrote b.txt."),
	)
	h := newHarnessFor(t, rb, nil)
	h.typeLine("write a.txt")
	h.pumpUntil(`⚠ approve write {"path":"a.txt"}`)
	if n := rb.writeCount(); n != 0 {
		t.Fatalf("the tool ran %d times before approval", n)
	}
	h.key("a")
	h.pumpUntil("Wrote a.txt.")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	for _, w := range []string{"approved write for this conversation", `✓ write {"path":"a.txt"}`} {
		if !strings.Contains(h.view(), w) {
			t.Errorf("view does not contain %q:\n%s", w, h.view())
		}
	}
	h.typeLine("and b.txt")
	h.pumpUntil("Wrote b.txt.")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if n := rb.writeCount(); n != 2 {
		t.Errorf("the tool ran %d times, want 2", n)
	}
}
