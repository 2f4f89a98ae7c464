package security

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// runStart is what the first events of a run's stream say: the run and,
// once the model asks for a call the policy asks about, its approval.
type runStart struct {
	runID, approvalID string
	rest              chan string // the rest of the stream, when it ends
}

// readRunStart reads a run's SSE stream until its approval event, then
// reads the rest in the background.
func readRunStart(t *testing.T, resp *http.Response) *runStart {
	t.Helper()
	rs := &runStart{rest: make(chan string, 1)}
	found := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var all strings.Builder
		event, signalled := "", false
		for sc.Scan() {
			line := sc.Text()
			all.WriteString(line + "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "run":
				var ev struct{ RunID string }
				_ = json.Unmarshal([]byte(line[len("data: "):]), &ev)
				rs.runID = ev.RunID
			case strings.HasPrefix(line, "data: ") && event == "approval" && !signalled:
				var ev struct{ Approval struct{ ID string } }
				_ = json.Unmarshal([]byte(line[len("data: "):]), &ev)
				rs.approvalID, signalled = ev.Approval.ID, true
				close(found)
			}
		}
		if !signalled {
			close(found)
		}
		rs.rest <- all.String()
	}()
	select {
	case <-found:
	case <-time.After(15 * time.Second):
		t.Fatal("the run announced no approval")
	}
	if rs.runID == "" || rs.approvalID == "" {
		t.Fatalf("run %q, approval %q: the stream ended before both were announced", rs.runID, rs.approvalID)
	}
	return rs
}

// TestOwnersRecordsAreTheirUsers: alice's conversation, run and pending
// approval are hers. Bob knows every ID (they are in alice's stream, which
// he saw over her shoulder) and tries each route with them: reading,
// listing, deleting and posting to the conversation; re-attaching to and
// stopping the run; listing and deciding the approval (approving it once,
// for the whole conversation, which would leave him a grant in her
// conversation, and denying it). Each answers 404, the same as for an ID
// that does not exist, and changes nothing: the approval stays pending,
// no grant is made, and when alice approves, her call runs.
func TestOwnersRecordsAreTheirUsers(t *testing.T) {
	s := newStack(t, ownersConfig)
	alice := s.user(t, "alice", "test__*")
	bob := s.user(t, "bob", "test__*")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	conv, resp := s.postMessage(t, ctx, alice, `please call test__add {"a":40,"b":2}`)
	run := readRunStart(t, resp)

	notFound := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/v1/conversations/" + conv, nil},
		{http.MethodDelete, "/api/v1/conversations/" + conv, nil},
		{http.MethodGet, "/api/v1/runs/" + run.runID + "/events", nil},
		{http.MethodDelete, "/api/v1/runs/" + run.runID, nil},
		{http.MethodGet, "/api/v1/approvals?conversation=" + conv, nil},
		{http.MethodPost, "/api/v1/approvals/" + run.approvalID, map[string]string{"decision": "approve"}},
		{http.MethodPost, "/api/v1/approvals/" + run.approvalID, map[string]string{"decision": "approve_conversation"}},
		{http.MethodPost, "/api/v1/approvals/" + run.approvalID, map[string]string{"decision": "deny", "reason": "bob says no"}},
	}
	for _, rt := range notFound {
		code, body := s.do(t, bob, rt.method, rt.path, rt.body)
		if code != http.StatusNotFound {
			t.Errorf("bob %s %s = %d %s; want 404", rt.method, rt.path, code, body)
		}
	}
	// Posting to her conversation needs the stream's Accept header to get
	// as far as the ownership check.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/api/v1/conversations/"+conv+"/messages",
		strings.NewReader(`{"message":"please call test__add {\"a\":1,\"b\":1}"}`))
	req.Header.Set("Authorization", "Bearer "+bob)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusNotFound {
		t.Errorf("bob posting to alice's conversation: %v %v; want 404", r.StatusCode, err)
	} else {
		r.Body.Close()
	}
	for _, path := range []string{"/api/v1/conversations", "/api/v1/approvals"} {
		if code, body := s.do(t, bob, http.MethodGet, path, nil); code != http.StatusOK || strings.Contains(string(body), conv) || strings.Contains(string(body), run.approvalID) {
			t.Errorf("bob GET %s = %d %s; want his own, empty list", path, code, body)
		}
	}

	// Nothing bob did took effect.
	a, err := s.st.GetApproval(t.Context(), run.approvalID)
	if err != nil || a.State != store.ApprovalPending {
		t.Fatalf("alice's approval after bob's attempts: %+v, %v; want still pending", a, err)
	}
	if granted, err := s.st.HasGrant(t.Context(), conv, "test__add"); err != nil || granted {
		t.Errorf("a grant for test__add in alice's conversation: %v, %v; want none", granted, err)
	}
	if _, err := s.st.GetConversation(t.Context(), conv); err != nil {
		t.Errorf("alice's conversation after bob's delete: %v", err)
	}

	// Alice decides her own approval, and her call runs.
	if code, body := s.do(t, alice, http.MethodPost, "/api/v1/approvals/"+run.approvalID, map[string]string{"decision": "approve"}); code != http.StatusOK {
		t.Fatalf("alice approving her call: %d %s", code, body)
	}
	var rest string
	select {
	case rest = <-run.rest:
	case <-time.After(20 * time.Second):
		t.Fatal("alice's run did not end after her approval")
	}
	if !strings.Contains(rest, `"outcome":"ok"`) || !strings.Contains(rest, "42") {
		t.Errorf("alice's run after her approval:\n%s", rest)
	}
	if code, body := s.do(t, alice, http.MethodGet, "/api/v1/conversations/"+conv, nil); code != http.StatusOK || !strings.Contains(string(body), "Tool said") {
		t.Errorf("alice reading her conversation: %d %s", code, body)
	}
}
