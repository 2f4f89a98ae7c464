package security

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestApprovalEndsWithItsRun: a run outlives its client (the page may
// re-attach), so the approval stays pending while the run waits; when the
// run is stopped, the approval is expired in the store (not left pending),
// and deciding it answers 409 saying why.
func TestApprovalEndsWithItsRun(t *testing.T) {
	s := newSurfaceStack(t)
	key := s.user(t, "frank", "test__*")
	ctx, cancel := context.WithCancel(t.Context())
	_, resp := s.postMessage(t, ctx, key, `please call test__add {"a":40,"b":2}`)
	ids := make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		_, _ = sseApprovals(resp.Body, func(id string) {
			select {
			case ids <- id:
			default:
			}
			cancel() // the client leaves while the call waits
		})
	}()
	var id string
	select {
	case id = <-ids:
	case <-time.After(15 * time.Second):
		t.Fatal("the run announced no approval")
	}
	a, err := s.st.GetApproval(t.Context(), id)
	if err != nil || a.State != store.ApprovalPending || a.RunID == "" {
		t.Fatalf("approval while the run waits without its client: %+v, %v; want pending, with its run", a, err)
	}
	if code, b := s.do(t, key, http.MethodDelete, "/api/v1/runs/"+a.RunID, nil); code/100 != 2 {
		t.Fatalf("stopping the run: %d %s", code, b)
	}
	if !mcptest.Poll(10*time.Second, func() bool {
		a, err = s.st.GetApproval(t.Context(), id)
		return err == nil && a.State != store.ApprovalPending
	}) {
		t.Fatalf("approval after the run was stopped: %+v, %v; want expired", a, err)
	}
	if a.State != store.ApprovalExpired || a.Reason == "" {
		t.Errorf("approval after the run was stopped: state %q reason %q; want expired with a reason", a.State, a.Reason)
	}
	code, b := s.do(t, key, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"})
	if code != http.StatusConflict || !strings.Contains(string(b), "expired") || !strings.Contains(string(b), "not made") {
		t.Errorf("deciding the expired approval: %d %s; want 409 saying it expired and the call was not made", code, b)
	}
	for _, r := range s.audit(t, "frank", "test__add") {
		if r.Outcome == store.OutcomeOK {
			t.Errorf("the call ran: %+v", r)
		}
	}
}

// TestRESTCallAsksAndRuns: a call the policy asks about, made through the
// tools API, waits for its user's decision and runs once approved; the
// audit says approved by a person, not approved without asking.
func TestRESTCallAsksAndRuns(t *testing.T) {
	s := newSurfaceStack(t)
	key := s.user(t, "gina", "test__*")
	done := make(chan int, 1)
	go func() {
		code, _ := s.do(t, key, http.MethodPost, "/api/v1/tools/test__add/call", map[string]any{"arguments": map[string]int{"a": 40, "b": 2}})
		done <- code
	}()
	id := s.pendingApproval(t, key)
	other := s.user(t, "mallory", "test__*")
	if code, _ := s.do(t, other, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"}); code != http.StatusNotFound {
		t.Errorf("another user deciding the approval: %d, want 404", code)
	}
	if code, b := s.do(t, key, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"}); code != http.StatusOK {
		t.Fatalf("approving: %d %s", code, b)
	}
	if code := <-done; code != http.StatusOK {
		t.Fatalf("the approved call answered %d", code)
	}
	recs := s.audit(t, "gina", "test__add")
	if len(recs) != 1 || recs[0].Approval != store.AuditApproved || recs[0].Outcome != store.OutcomeOK {
		t.Errorf("audit = %+v, want one approved, ok record", recs)
	}
}
