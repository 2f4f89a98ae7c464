package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testApprovalContent checks the form values an elicitation is accepted
// with: kept with the decision so another process can read them, taken
// exactly once, and refused where they do not belong.
func testApprovalContent(t *testing.T, s store.Store) {
	c := newConversation(t, s, "ann")
	a, err := s.CreateApproval(ctx(t), store.Approval{
		ConversationID: c.ID, Tool: "elicitation", Server: "everything", Content: json.RawMessage(`{"smuggled":true}`),
	})
	must(t, "CreateApproval", err)
	if a.Content != nil {
		t.Errorf("CreateApproval kept content %s; only a decision may carry it", a.Content)
	}
	got, err := s.TakeApprovalContent(ctx(t), a.ID)
	must(t, "TakeApprovalContent while pending", err)
	if got != nil {
		t.Errorf("TakeApprovalContent of a pending approval = %s, want none", got)
	}

	for _, bad := range []struct {
		name string
		d    store.Decision
	}{
		{"with a denial", store.Decision{State: store.ApprovalDenied, Content: json.RawMessage(`{"a":1}`)}},
		{"not JSON", store.Decision{State: store.ApprovalApproved, Content: json.RawMessage(`{"a":`)}},
		{"not an object", store.Decision{State: store.ApprovalApproved, Content: json.RawMessage(`["a"]`)}},
		{"null", store.Decision{State: store.ApprovalApproved, Content: json.RawMessage(`null`)}},
	} {
		_, err := s.DecideApproval(ctx(t), a.ID, bad.d)
		wantErr(t, "DecideApproval with content "+bad.name, err, store.ErrInvalid)
	}

	values := json.RawMessage(`{"name":"Ada","age":36,"subscribe":true}`)
	d, err := s.DecideApproval(ctx(t), a.ID, store.Decision{State: store.ApprovalApproved, DecidedBy: "ann", Content: values})
	must(t, "DecideApproval with content", err)
	diffJSON(t, "DecideApproval content", values, d.Content)
	g, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	diffJSON(t, "GetApproval content", values, g.Content)
	if list, err := s.ListPendingApprovals(ctx(t), store.ApprovalFilter{}); err != nil || len(list) != 0 {
		t.Errorf("ListPendingApprovals = %v, %v; want none", list, err)
	}

	// Of several takers exactly one gets the values, and they are gone
	// from the record afterwards.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		takes []json.RawMessage
	)
	for range 4 {
		wg.Go(func() {
			got, err := s.TakeApprovalContent(ctx(t), a.ID)
			if err != nil {
				t.Errorf("TakeApprovalContent: %v", err)
				return
			}
			if got != nil {
				mu.Lock()
				takes = append(takes, got)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(takes) != 1 {
		t.Fatalf("%d of 4 concurrent takes got the values, want exactly 1", len(takes))
	}
	diffJSON(t, "TakeApprovalContent", values, takes[0])
	g, err = s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval after the take", err)
	if g.Content != nil || g.State != store.ApprovalApproved || g.DecidedBy != "ann" {
		t.Errorf("after the take: content %s, state %s, by %q; want no content, the decision kept", g.Content, g.State, g.DecidedBy)
	}
	_, err = s.TakeApprovalContent(ctx(t), "nope")
	wantErr(t, "TakeApprovalContent of a missing approval", err, store.ErrNotFound)

	// Values nobody took (the waiting process stopped) are cleared when
	// the next process starts, as its pending approvals are expired.
	left, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "elicitation"})
	must(t, "CreateApproval", err)
	_, err = s.DecideApproval(ctx(t), left.ID, store.Decision{State: store.ApprovalApproved, Content: json.RawMessage(`{"pin":"1234"}`)})
	must(t, "DecideApproval", err)
	_, err = s.ExpirePending(ctx(t), time.Now().Add(time.Minute))
	must(t, "ExpirePending", err)
	if g, err := s.GetApproval(ctx(t), left.ID); err != nil || g.Content != nil || g.State != store.ApprovalApproved {
		t.Errorf("after ExpirePending: %+v, %v; want the decision kept without content", g, err)
	}
}

// diffJSON compares two JSON documents by value (PostgreSQL and SQLite
// may keep the text as given, but nothing promises the spacing).
func diffJSON(t *testing.T, what string, want, got json.RawMessage) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want is not JSON: %v", what, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: got %q, not JSON: %v", what, got, err)
		return
	}
	diff(t, what, w, g)
}
