package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// runDeciding runs a turn and answers every approval with decide (nil
// leaves them pending). It returns the events and the approvals seen.
func (e *env) runDeciding(t *testing.T, req *agent.Request, decide func(a *store.Approval) *agent.Decision) []agent.Event {
	t.Helper()
	if req.ConversationID == "" {
		req.ConversationID = "c1"
	}
	var evs []agent.Event
	for ev, err := range e.rt.Run(t.Context(), req) {
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		evs = append(evs, ev)
		if ev.Kind == agent.EventApproval && decide != nil {
			if d := decide(ev.Approval); d != nil {
				if err := e.rt.Decide(t.Context(), ev.Approval.ID, *d); err != nil {
					t.Fatalf("decide: %v", err)
				}
			}
		}
	}
	return evs
}

func countingTool(name string, ann *tools.Annotations, n *atomic.Int32) *tools.Func {
	return tool(name, ann, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		n.Add(1)
		return tools.TextResult("deleted"), nil
	})
}

// TestApprovals covers each way a pending approval ends, over two turns
// that call the same destructive tool.
func TestApprovals(t *testing.T) {
	tests := []struct {
		name         string
		decision     agent.Decision
		wantRuns     int32    // tool executions over both turns
		wantAsked    int      // approval events over both turns
		wantApproval []string // audit approval values, in order
		wantSeen     string   // in the first tool result the model sees
	}{
		{"approve once", agent.Decision{Kind: agent.ApproveOnce, By: "ann"}, 2, 2, []string{"approved", "approved"}, "deleted"},
		{"approve for the conversation", agent.Decision{Kind: agent.ApproveConversation}, 2, 1, []string{"approved", "granted"}, "deleted"},
		{"deny with reason", agent.Decision{Kind: agent.Deny, Reason: "not today"}, 0, 2, []string{"declined", "declined"}, "the user declined this call: not today"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int32
			fake := llmtest.NewFakeProvider(calls("c1", "delete", `{"what":"x"}`), say("ok"), calls("c2", "delete", `{"what":"y"}`), say("ok"))
			e := newEnv(t, fake, nil)
			e.setTools(countingTool("delete", destructive, &runs))
			asked := 0
			decide := func(a *store.Approval) *agent.Decision {
				asked++
				if a.Tool != "delete" || a.Server != "builtin" || string(a.Arguments) == "" || a.ExpiresAt.IsZero() {
					t.Errorf("approval = %+v", a)
				}
				return &tc.decision
			}
			first := e.runDeciding(t, &agent.Request{Message: "delete x"}, decide)
			e.runDeciding(t, &agent.Request{Message: "delete y"}, decide)

			if got := runs.Load(); got != tc.wantRuns {
				t.Errorf("tool ran %d times, want %d", got, tc.wantRuns)
			}
			if asked != tc.wantAsked {
				t.Errorf("asked %d times, want %d", asked, tc.wantAsked)
			}
			var approvals []string
			for _, r := range e.audit.all() {
				approvals = append(approvals, string(r.Rec.Approval))
			}
			if diff := cmp.Diff(tc.wantApproval, approvals); diff != "" {
				t.Errorf("audit approvals mismatch (-want +got):\n%s", diff)
			}
			if res := toolMessages(fake.Requests(), 1); len(res) != 1 || !strings.Contains(res[0].Text(), tc.wantSeen) {
				t.Errorf("model saw %+v, want %q", res, tc.wantSeen)
			}
			if len(find(first, agent.EventApprovalResolved)) != 1 {
				t.Errorf("no approval_resolved event in %v", kinds(first))
			}
		})
	}
}

// TestApprovalExpires lets an approval time out: the call is denied as
// expired, and a late decision is refused.
func TestApprovalExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		fake := llmtest.NewFakeProvider(calls("c1", "delete", `{}`), say("nobody answered"))
		e := newEnv(t, fake, func(o *envOptions) { o.Limits.ApprovalTimeout = 5 * time.Minute })
		e.setTools(countingTool("delete", destructive, &runs))
		var id string
		start := time.Now()
		evs := e.runDeciding(t, &agent.Request{Message: "delete"}, func(a *store.Approval) *agent.Decision {
			id = a.ID
			return nil
		})
		if waited := time.Since(start); waited != 5*time.Minute {
			t.Errorf("waited %s for the approval, want 5m", waited)
		}
		if runs.Load() != 0 {
			t.Error("the tool ran without approval")
		}
		res := find(evs, agent.EventApprovalResolved)
		if len(res) != 1 || res[0].Approval.State != store.ApprovalExpired {
			t.Errorf("resolved events = %+v", res)
		}
		if seen := toolMessages(fake.Requests(), 1); len(seen) != 1 || !strings.Contains(seen[0].Text(), "did not answer") {
			t.Errorf("model saw %+v", seen)
		}
		if recs := e.audit.all(); len(recs) != 1 || recs[0].Rec.Approval != store.AuditExpired || recs[0].Res.Outcome != store.OutcomeDenied {
			t.Errorf("audit = %+v", recs)
		}
		if err := e.rt.Decide(t.Context(), id, agent.Decision{Kind: agent.ApproveOnce}); !errors.Is(err, agent.ErrNotPending) {
			t.Errorf("late decision: err = %v, want ErrNotPending", err)
		}
	})
}

// TestApprovalPausesOnlyItsCall checks that a read-only call in the same
// answer finishes while the destructive one waits.
func TestApprovalPausesOnlyItsCall(t *testing.T) {
	var runs atomic.Int32
	fake := llmtest.NewFakeProvider(calls("c1", "delete", `{}`, "c2", "look", `{}`), say("ok"))
	e := newEnv(t, fake, nil)
	e.setTools(countingTool("delete", destructive, &runs), tool("look", readOnly, nil))
	// Decide only once look has finished: were look held up by the
	// pending approval, the run would never end.
	var (
		pending  string
		lookDone bool
	)
	for ev, err := range e.rt.Run(t.Context(), &agent.Request{ConversationID: "c1", Message: "go"}) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Kind == agent.EventApproval:
			pending = ev.Approval.ID
		case ev.Kind == agent.EventToolEnd && ev.Call.Name == "look":
			lookDone = true
		default:
			continue
		}
		if pending != "" && lookDone {
			if err := e.rt.Decide(t.Context(), pending, agent.Decision{Kind: agent.ApproveOnce}); err != nil {
				t.Fatal(err)
			}
			pending = ""
		}
	}
	if runs.Load() != 1 {
		t.Errorf("delete ran %d times", runs.Load())
	}
}

// TestApproversAndPolicy covers non-interactive approvers and policy rules.
func TestApproversAndPolicy(t *testing.T) {
	tests := []struct {
		name     string
		approver agent.Approver
		policy   agent.Policy
		wantRuns int32
		wantSeen string
	}{
		{"auto approve", agent.AutoApprove, agent.Policy{}, 1, "deleted"},
		{"auto deny", agent.AutoDeny, agent.Policy{}, 0, "cannot ask for it"},
		{"rule denies even with --yes", agent.AutoApprove, agent.Policy{Rules: []agent.Rule{{Server: "builtin", Tool: "del*", Action: agent.ActionDeny}}}, 0, "policy does not allow"},
		{"rule allows", agent.Interactive, agent.Policy{Rules: []agent.Rule{{Tool: "delete", Action: agent.ActionAllow}}}, 1, "deleted"},
		{"allow-all", agent.Interactive, agent.Policy{Mode: agent.ModeAllowAll}, 1, "deleted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int32
			fake := llmtest.NewFakeProvider(calls("c1", "delete", `{}`), say("ok"))
			e := newEnv(t, fake, func(o *envOptions) { o.Policy = tc.policy })
			e.setTools(countingTool("delete", destructive, &runs))
			evs := e.runDeciding(t, &agent.Request{Message: "go", Approver: tc.approver}, func(*store.Approval) *agent.Decision {
				t.Error("asked for approval")
				return nil
			})
			if runs.Load() != tc.wantRuns {
				t.Errorf("ran %d times, want %d (events %v)", runs.Load(), tc.wantRuns, kinds(evs))
			}
			if seen := toolMessages(fake.Requests(), 1); len(seen) != 1 || !strings.Contains(seen[0].Text(), tc.wantSeen) {
				t.Errorf("model saw %+v, want %q", seen, tc.wantSeen)
			}
		})
	}
}

func TestPolicyDecide(t *testing.T) {
	f := false
	entry := func(kind tools.Kind, server, name string, ann *tools.Annotations) tools.Entry {
		return tools.Entry{Name: name, Origin: tools.Origin{Kind: kind, Server: server, Name: name}, Info: tools.Info{Name: name, Annotations: ann}}
	}
	read := entry(tools.KindBuiltin, "", "read_file", readOnly)
	write := entry(tools.KindBuiltin, "", "write_file", destructive)
	additive := entry(tools.KindMCP, "notes", "append", &tools.Annotations{DestructiveHint: &f})
	bare := entry(tools.KindMCP, "files", "files__move", nil)
	rules := []agent.Rule{
		{Server: "files", Tool: "files__*", Action: agent.ActionAllow},
		{Server: "builtin", Tool: "read_*", Action: agent.ActionDeny},
		{Server: "[", Action: agent.ActionDeny}, // malformed glob never matches
		{Tool: "write_file", Action: "bogus"},   // unknown action is skipped
	}
	tests := []struct {
		name   string
		policy agent.Policy
		e      tools.Entry
		want   agent.Action
	}{
		{"default read-only", agent.Policy{}, read, agent.ActionAllow},
		{"default destructive", agent.Policy{}, write, agent.ActionAsk},
		{"default additive", agent.Policy{}, additive, agent.ActionAsk},
		{"default unannotated", agent.Policy{}, bare, agent.ActionAsk},
		{"configured read-only", agent.Policy{ReadOnly: agent.ActionAsk}, read, agent.ActionAsk},
		{"configured unannotated", agent.Policy{Unannotated: agent.ActionDeny}, bare, agent.ActionDeny},
		{"ask-all", agent.Policy{Mode: agent.ModeAskAll}, read, agent.ActionAsk},
		{"allow-all", agent.Policy{Mode: agent.ModeAllowAll}, write, agent.ActionAllow},
		{"rule by server", agent.Policy{Rules: rules}, bare, agent.ActionAllow},
		{"rule by builtin", agent.Policy{Rules: rules, Mode: agent.ModeAllowAll}, read, agent.ActionDeny},
		{"bad rules skipped", agent.Policy{Rules: rules}, write, agent.ActionAsk},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.Decide(tc.e); got != tc.want {
				t.Errorf("Decide = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestTurnTimeoutWhileAwaitingApproval: the turn limit also bounds a wait
// for approval; the approval is withdrawn and the call never runs.
func TestTurnTimeoutWhileAwaitingApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		e := newEnv(t, llmtest.NewFakeProvider(calls("c1", "delete", `{}`)), func(o *envOptions) {
			o.Limits = agent.Limits{TurnTimeout: time.Minute, ApprovalTimeout: time.Hour}
		})
		e.setTools(countingTool("delete", destructive, &runs))
		evs := e.runDeciding(t, &agent.Request{Message: "delete"}, nil)
		if errs := find(evs, agent.EventError); len(errs) != 1 || errs[0].Error.Code != agent.CodeTurnTimeout {
			t.Errorf("error events = %+v", errs)
		}
		if res := find(evs, agent.EventApprovalResolved); len(res) != 1 || res[0].Approval.State != store.ApprovalExpired {
			t.Errorf("resolved = %+v", res)
		}
		if runs.Load() != 0 {
			t.Error("the tool ran")
		}
	})
}
