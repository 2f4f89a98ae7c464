package storetest

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testExpireApproval: an approval whose run ended is expired, and can then
// be neither decided nor expired again.
func testExpireApproval(t *testing.T, s store.Store) {
	c := newConversation(t, s, "ann")
	a, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "files__write"})
	must(t, "CreateApproval", err)
	must(t, "ExpireApproval", s.ExpireApproval(ctx(t), a.ID, "the run ended before a decision"))
	got, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	if got.State != store.ApprovalExpired || got.Reason != "the run ended before a decision" || got.DecidedAt.IsZero() {
		t.Errorf("after ExpireApproval: state %q reason %q decided %v, want expired with the reason and a time", got.State, got.Reason, got.DecidedAt)
	}
	_, err = s.DecideApproval(ctx(t), a.ID, store.Decision{State: store.ApprovalApproved})
	wantErr(t, "DecideApproval of an expired approval", err, store.ErrConflict)
	wantErr(t, "ExpireApproval twice", s.ExpireApproval(ctx(t), a.ID, "again"), store.ErrConflict)
	wantErr(t, "ExpireApproval of a missing approval", s.ExpireApproval(ctx(t), "nope", "x"), store.ErrNotFound)

	d, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "files__write"})
	must(t, "CreateApproval", err)
	_, err = s.DecideApproval(ctx(t), d.ID, store.Decision{State: store.ApprovalDenied})
	must(t, "DecideApproval", err)
	wantErr(t, "ExpireApproval of a decided approval", s.ExpireApproval(ctx(t), d.ID, "x"), store.ErrConflict)
}

// testApprovalUser: an approval outside a conversation belongs to the user
// who asked; one in a conversation to the conversation's owner, whatever
// its User says.
func testApprovalUser(t *testing.T, s store.Store) {
	c := newConversation(t, s, "ann")
	own, err := s.CreateApproval(ctx(t), store.Approval{Tool: "files__delete", User: "bob"})
	must(t, "CreateApproval", err)
	if own.User != "bob" {
		t.Errorf("CreateApproval: User %q, want bob", own.User)
	}
	conv, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "files__delete", User: "bob"})
	must(t, "CreateApproval", err)
	for _, tc := range []struct {
		user string
		want []string
	}{
		{"bob", []string{own.ID}},
		{"ann", []string{conv.ID}},
		{"eve", nil},
	} {
		got, err := s.ListPendingApprovals(ctx(t), store.ApprovalFilter{User: tc.user})
		must(t, "ListPendingApprovals", err)
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		diff(t, "ListPendingApprovals of "+tc.user, tc.want, ids)
	}
}
