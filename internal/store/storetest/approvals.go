package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testApprovals(t *testing.T, s store.Store) {
	c := newConversation(t, s, "ann")
	req := store.Approval{
		ConversationID: c.ID, RunID: "run-1", CallID: "call_1", Tool: "files__write", Server: "files",
		Arguments: json.RawMessage(`{"path":"a.txt","text":"hi"}`), State: store.ApprovalApproved, DecidedBy: "sneaky",
	}
	a, err := s.CreateApproval(ctx(t), req)
	must(t, "CreateApproval", err)
	want := req
	want.ID = a.ID
	want.State = store.ApprovalPending
	want.DecidedBy = ""
	diff(t, "CreateApproval", want, a, ignoreTimes)
	got, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	diff(t, "GetApproval", a, got)

	// An approval outside any conversation (MCP gateway calls).
	loose, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal"})
	must(t, "CreateApproval without a conversation", err)
	_, err = s.CreateApproval(ctx(t), store.Approval{ConversationID: "nope", Tool: "terminal"})
	wantErr(t, "CreateApproval in a missing conversation", err, store.ErrNotFound)
	_, err = s.CreateApproval(ctx(t), store.Approval{})
	wantErr(t, "CreateApproval without a tool", err, store.ErrInvalid)

	other := newConversation(t, s, "bob")
	theirs, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: other.ID, Tool: "terminal"})
	must(t, "CreateApproval", err)
	for _, tc := range []struct {
		name string
		f    store.ApprovalFilter
		want []string
	}{
		{"all", store.ApprovalFilter{}, []string{a.ID, loose.ID, theirs.ID}},
		{"by conversation", store.ApprovalFilter{ConversationID: c.ID}, []string{a.ID}},
		{"by user", store.ApprovalFilter{User: "bob"}, []string{theirs.ID}},
		{"by user and other conversation", store.ApprovalFilter{User: "bob", ConversationID: c.ID}, nil},
	} {
		list, err := s.ListPendingApprovals(ctx(t), tc.f)
		must(t, "ListPendingApprovals "+tc.name, err)
		var ids []string
		for _, x := range list {
			ids = append(ids, x.ID)
		}
		diff(t, "ListPendingApprovals "+tc.name, tc.want, ids)
	}

	before := time.Now()
	d, err := s.DecideApproval(ctx(t), a.ID, store.Decision{State: store.ApprovalDenied, Reason: "not now", DecidedBy: "ann"})
	must(t, "DecideApproval", err)
	if d.State != store.ApprovalDenied || d.Scope != store.ScopeOnce || d.Reason != "not now" || d.DecidedBy != "ann" {
		t.Errorf("DecideApproval returned %+v", d)
	}
	checkTime(t, "DecidedAt", d.DecidedAt, before, time.Now())
	_, err = s.DecideApproval(ctx(t), a.ID, store.Decision{State: store.ApprovalApproved})
	wantErr(t, "DecideApproval twice", err, store.ErrConflict)
	_, err = s.DecideApproval(ctx(t), "nope", store.Decision{State: store.ApprovalApproved})
	wantErr(t, "DecideApproval of a missing approval", err, store.ErrNotFound)
	_, err = s.DecideApproval(ctx(t), loose.ID, store.Decision{State: store.ApprovalPending})
	wantErr(t, "DecideApproval back to pending", err, store.ErrInvalid)
	_, err = s.DecideApproval(ctx(t), loose.ID, store.Decision{State: store.ApprovalApproved, Scope: "forever"})
	wantErr(t, "DecideApproval with an unknown scope", err, store.ErrInvalid)
	_, err = s.GetApproval(ctx(t), "nope")
	wantErr(t, "GetApproval of a missing approval", err, store.ErrNotFound)

	// Approving for the conversation records a grant in the same step.
	conv, err := s.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "files__edit"})
	must(t, "CreateApproval", err)
	_, err = s.DecideApproval(ctx(t), conv.ID, store.Decision{State: store.ApprovalApproved, Scope: store.ScopeConversation, DecidedBy: "ann"})
	must(t, "DecideApproval for the conversation", err)
	granted, err := s.HasGrant(ctx(t), c.ID, "files__edit")
	must(t, "HasGrant", err)
	if !granted {
		t.Error("approving for the conversation recorded no grant")
	}
}

// testConcurrentDecide checks that of several deciders exactly one wins.
func testConcurrentDecide(t *testing.T, s store.Store) {
	a, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal"})
	must(t, "CreateApproval", err)
	const n = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
	)
	for i := range n {
		wg.Go(func() {
			state := store.ApprovalApproved
			if i%2 == 1 {
				state = store.ApprovalDenied
			}
			who := string(rune('a' + i))
			_, err := s.DecideApproval(ctx(t), a.ID, store.Decision{State: state, DecidedBy: who})
			switch {
			case err == nil:
				mu.Lock()
				winners = append(winners, who)
				mu.Unlock()
			case !isConflict(err):
				t.Errorf("DecideApproval: %v, want nil or ErrConflict", err)
			}
		})
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d deciders won (%v), want exactly 1", len(winners), winners)
	}
	got, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	if got.DecidedBy != winners[0] {
		t.Errorf("stored decider %q, winner %q", got.DecidedBy, winners[0])
	}
}

func testApprovalExpiry(t *testing.T, s store.Store) {
	old, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal", CreatedAt: time.Now().Add(-time.Hour)})
	must(t, "CreateApproval", err)
	decided, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal", CreatedAt: time.Now().Add(-time.Hour)})
	must(t, "CreateApproval", err)
	_, err = s.DecideApproval(ctx(t), decided.ID, store.Decision{State: store.ApprovalApproved})
	must(t, "DecideApproval", err)
	lapsed, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal", ExpiresAt: time.Now().Add(-time.Second)})
	must(t, "CreateApproval", err)
	start := time.Now().Add(-time.Minute)
	fresh, err := s.CreateApproval(ctx(t), store.Approval{Tool: "terminal"})
	must(t, "CreateApproval", err)

	_, err = s.DecideApproval(ctx(t), lapsed.ID, store.Decision{State: store.ApprovalApproved})
	wantErr(t, "DecideApproval after ExpiresAt", err, store.ErrConflict)

	n, err := s.ExpirePending(ctx(t), start)
	must(t, "ExpirePending", err)
	if n != 1 {
		t.Errorf("ExpirePending expired %d, want 1", n)
	}
	for _, tc := range []struct {
		id   string
		want store.ApprovalState
	}{{old.ID, store.ApprovalExpired}, {decided.ID, store.ApprovalApproved}, {fresh.ID, store.ApprovalPending}} {
		got, err := s.GetApproval(ctx(t), tc.id)
		must(t, "GetApproval", err)
		if got.State != tc.want {
			t.Errorf("approval %s: state %s, want %s", tc.id, got.State, tc.want)
		}
		if tc.want == store.ApprovalExpired && got.DecidedAt.IsZero() {
			t.Error("expired approval has no DecidedAt")
		}
	}
	_, err = s.DecideApproval(ctx(t), old.ID, store.Decision{State: store.ApprovalApproved})
	wantErr(t, "DecideApproval of an expired approval", err, store.ErrConflict)
}

func testGrants(t *testing.T, s store.Store) {
	c := newConversation(t, s, "")
	must(t, "AddGrant", s.AddGrant(ctx(t), store.Grant{ConversationID: c.ID, Tool: "terminal", GrantedBy: "ann"}))
	must(t, "AddGrant again", s.AddGrant(ctx(t), store.Grant{ConversationID: c.ID, Tool: "terminal", GrantedBy: "bob"}))
	must(t, "AddGrant", s.AddGrant(ctx(t), store.Grant{ConversationID: c.ID, Tool: "files__write"}))
	wantErr(t, "AddGrant in a missing conversation", s.AddGrant(ctx(t), store.Grant{ConversationID: "nope", Tool: "x"}), store.ErrNotFound)
	wantErr(t, "AddGrant without a tool", s.AddGrant(ctx(t), store.Grant{ConversationID: c.ID}), store.ErrInvalid)
	for _, tc := range []struct {
		conv, tool string
		want       bool
	}{{c.ID, "terminal", true}, {c.ID, "files__read", false}, {"nope", "terminal", false}} {
		got, err := s.HasGrant(ctx(t), tc.conv, tc.tool)
		must(t, "HasGrant", err)
		if got != tc.want {
			t.Errorf("HasGrant(%q, %q) = %v, want %v", tc.conv, tc.tool, got, tc.want)
		}
	}
	list, err := s.ListGrants(ctx(t), c.ID)
	must(t, "ListGrants", err)
	want := []store.Grant{{ConversationID: c.ID, Tool: "files__write"}, {ConversationID: c.ID, Tool: "terminal", GrantedBy: "ann"}}
	diff(t, "ListGrants", want, list, ignoreTimes)
}

func testUsage(t *testing.T, s store.Store) {
	c := newConversation(t, s, "")
	start := time.Now()
	runs := []store.Usage{
		{RunID: "r1", ConversationID: c.ID, Agent: "bob", Model: "m", InputTokens: 100, OutputTokens: 20, Router: "tools", StartedAt: start, FinishedAt: start.Add(time.Second)},
		{RunID: "r2", ConversationID: c.ID, InputTokens: 50, OutputTokens: 5},
		{RunID: "r3", ConversationID: "elsewhere", InputTokens: 1, OutputTokens: 1},
	}
	for _, u := range runs {
		must(t, "RecordUsage", s.RecordUsage(ctx(t), u))
	}
	wantErr(t, "RecordUsage of a recorded run", s.RecordUsage(ctx(t), runs[0]), store.ErrConflict)
	wantErr(t, "RecordUsage without a run ID", s.RecordUsage(ctx(t), store.Usage{}), store.ErrInvalid)
	got, err := s.SumUsage(ctx(t), c.ID)
	must(t, "SumUsage", err)
	diff(t, "SumUsage", store.UsageTotals{Runs: 2, InputTokens: 150, OutputTokens: 25}, got)
	got, err = s.SumUsage(ctx(t), "nothing")
	must(t, "SumUsage", err)
	diff(t, "SumUsage of nothing", store.UsageTotals{}, got)
}
