package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testAudit(t *testing.T, s store.Store) {
	before := time.Now()
	rec := store.AuditRecord{
		User: "ann", ConversationID: "c1", Agent: "bob", RunID: "run-1", CallID: "call_1",
		Tool: "files__write", Server: "files", Arguments: json.RawMessage(`{"path":"a.txt"}`), Approval: store.AuditApproved,
	}
	id, err := s.BeginAudit(ctx(t), rec)
	must(t, "BeginAudit", err)
	list, err := s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	want := rec
	want.ID = id
	want.Outcome = store.OutcomeRunning
	diff(t, "record before the call finished", []store.AuditRecord{want}, list, ignoreTimes)
	if len(list) == 1 {
		checkTime(t, "Time", list[0].Time, before, time.Now())
	}

	err = s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeToolError, Error: "disk full", Duration: 1500 * time.Millisecond, ResultBytes: 42})
	must(t, "FinishAudit", err)
	list, err = s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	want.Outcome, want.Error, want.DurationMS, want.ResultBytes = store.OutcomeToolError, "disk full", 1500, 42
	diff(t, "finished record", []store.AuditRecord{want}, list, ignoreTimes)
	if len(list) == 1 && list[0].FinishedAt.Before(list[0].Time) {
		t.Errorf("FinishedAt %v before Time %v", list[0].FinishedAt, list[0].Time)
	}
	wantErr(t, "FinishAudit twice", s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeOK}), store.ErrConflict)
	wantErr(t, "FinishAudit of a missing record", s.FinishAudit(ctx(t), "nope", store.AuditResult{Outcome: store.OutcomeOK}), store.ErrNotFound)
	wantErr(t, "FinishAudit as running", s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeRunning}), store.ErrInvalid)
	_, err = s.BeginAudit(ctx(t), store.AuditRecord{})
	wantErr(t, "BeginAudit without a tool", err, store.ErrInvalid)

	// The approval decided after BeginAudit replaces the one recorded.
	id2, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "terminal"})
	must(t, "BeginAudit", err)
	must(t, "FinishAudit", s.FinishAudit(ctx(t), id2, store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditDenied}))
	list, err = s.ListAudit(ctx(t), store.AuditFilter{Tool: "terminal"})
	must(t, "ListAudit", err)
	if len(list) != 1 || list[0].Approval != store.AuditDenied || list[0].Outcome != store.OutcomeDenied {
		t.Errorf("after a late decision: %+v", list)
	}

	// Running records of this process are left alone.
	n, err := s.InterruptRunning(ctx(t))
	must(t, "InterruptRunning", err)
	if n != 0 {
		t.Errorf("InterruptRunning touched %d records of the running process", n)
	}
}

func testAuditFilters(t *testing.T, s store.Store) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	recs := []store.AuditRecord{
		{Time: base, User: "ann", ConversationID: "c1", Tool: "files__read", Server: "files"},
		{Time: base.Add(1 * time.Minute), User: "ann", ConversationID: "c1", Tool: "files__write", Server: "files"},
		{Time: base.Add(2 * time.Minute), User: "bob", ConversationID: "c2", Tool: "terminal", Server: ""},
		{Time: base.Add(3 * time.Minute), User: "bob", ConversationID: "c2", Tool: "mail__send", Server: "mail"},
		{Time: base.Add(4 * time.Minute), User: "ann", ConversationID: "c3", Tool: "files_read", Server: "files"},
		{Time: base.Add(5 * time.Minute), User: "ann", ConversationID: "c3", Tool: "Files__read", Server: "files"},
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		id, err := s.BeginAudit(ctx(t), r)
		must(t, "BeginAudit", err)
		ids[i] = id
	}
	must(t, "FinishAudit", s.FinishAudit(ctx(t), ids[1], store.AuditResult{Outcome: store.OutcomeOK}))
	must(t, "FinishAudit", s.FinishAudit(ctx(t), ids[3], store.AuditResult{Outcome: store.OutcomeTimeout}))

	tests := []struct {
		name string
		f    store.AuditFilter
		want []int // indexes into recs, newest first
	}{
		{"all", store.AuditFilter{}, []int{5, 4, 3, 2, 1, 0}},
		{"limit", store.AuditFilter{Limit: 2}, []int{5, 4}},
		{"tool glob", store.AuditFilter{Tool: "files__*"}, []int{1, 0}},
		// '_' is an ordinary character in a glob, not a wildcard.
		{"tool exact with underscores", store.AuditFilter{Tool: "files_read"}, []int{4}},
		{"tool glob question mark", store.AuditFilter{Tool: "files__rea?"}, []int{0}},
		{"tool glob is case-sensitive", store.AuditFilter{Tool: "Files*"}, []int{5}},
		{"tool glob no match", store.AuditFilter{Tool: "nothing*"}, nil},
		{"tool glob with percent", store.AuditFilter{Tool: "files%"}, nil},
		{"server", store.AuditFilter{Server: "mail"}, []int{3}},
		{"user", store.AuditFilter{User: "bob"}, []int{3, 2}},
		{"conversation", store.AuditFilter{ConversationID: "c1"}, []int{1, 0}},
		{"since", store.AuditFilter{Since: base.Add(4 * time.Minute)}, []int{5, 4}},
		{"until is exclusive", store.AuditFilter{Until: base.Add(2 * time.Minute)}, []int{1, 0}},
		{"window", store.AuditFilter{Since: base.Add(time.Minute), Until: base.Add(3 * time.Minute)}, []int{2, 1}},
		{"outcome", store.AuditFilter{Outcome: store.OutcomeTimeout}, []int{3}},
		{"outcome running", store.AuditFilter{Outcome: store.OutcomeRunning, User: "bob"}, []int{2}},
		{"combined", store.AuditFilter{User: "ann", Server: "files", Tool: "*read"}, []int{5, 4, 0}},
	}
	for _, tc := range tests {
		got, err := s.ListAudit(ctx(t), tc.f)
		must(t, "ListAudit "+tc.name, err)
		var gotIDs, wantIDs []string
		for _, r := range got {
			gotIDs = append(gotIDs, r.ID)
		}
		for _, i := range tc.want {
			wantIDs = append(wantIDs, ids[i])
		}
		diff(t, fmt.Sprintf("ListAudit %s", tc.name), wantIDs, gotIDs)
	}
	_, err := s.ListAudit(ctx(t), store.AuditFilter{Limit: -1})
	wantErr(t, "ListAudit with a negative limit", err, store.ErrInvalid)
	_, err = s.ListAudit(ctx(t), store.AuditFilter{Since: base, Until: base.Add(-time.Second)})
	wantErr(t, "ListAudit with until before since", err, store.ErrInvalid)
}

// testInterruptRunning covers what one process can see; [Restart] covers a
// process that stopped.
func testInterruptRunning(t *testing.T, s store.Store) {
	id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "terminal"})
	must(t, "BeginAudit", err)
	n, err := s.InterruptRunning(ctx(t))
	must(t, "InterruptRunning", err)
	if n != 0 {
		t.Errorf("InterruptRunning interrupted %d of its own process's calls", n)
	}
	must(t, "FinishAudit", s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeOK}))
}

// Restart checks what a restart leaves behind. before and after must be two
// stores open on the same database, as two processes would open it; Restart
// uses before, closes it (the process stops), and then starts after up as
// app does: InterruptRunning and ExpirePending. Calls in flight and approvals
// pending in before must show as interrupted and expired, not lost.
func Restart(t *testing.T, before, after store.Store) {
	t.Helper()
	c, err := before.CreateConversation(ctx(t), store.Conversation{})
	must(t, "CreateConversation", err)
	running, err := before.BeginAudit(ctx(t), store.AuditRecord{ConversationID: c.ID, Tool: "terminal"})
	must(t, "BeginAudit", err)
	done, err := before.BeginAudit(ctx(t), store.AuditRecord{ConversationID: c.ID, Tool: "calculator"})
	must(t, "BeginAudit", err)
	must(t, "FinishAudit", before.FinishAudit(ctx(t), done, store.AuditResult{Outcome: store.OutcomeOK}))
	pending, err := before.CreateApproval(ctx(t), store.Approval{ConversationID: c.ID, Tool: "terminal"})
	must(t, "CreateApproval", err)
	must(t, "Close", before.Close())

	start := time.Now()
	n, err := after.InterruptRunning(ctx(t))
	must(t, "InterruptRunning", err)
	if n != 1 {
		t.Errorf("InterruptRunning interrupted %d records, want 1", n)
	}
	n, err = after.ExpirePending(ctx(t), start)
	must(t, "ExpirePending", err)
	if n != 1 {
		t.Errorf("ExpirePending expired %d approvals, want 1", n)
	}
	recs, err := after.ListAudit(ctx(t), store.AuditFilter{ConversationID: c.ID})
	must(t, "ListAudit", err)
	got := map[string]store.Outcome{}
	for _, r := range recs {
		got[r.ID] = r.Outcome
	}
	diff(t, "outcomes after restart", map[string]store.Outcome{running: store.OutcomeInterrupted, done: store.OutcomeOK}, got)
	wantErr(t, "FinishAudit of an interrupted record", after.FinishAudit(ctx(t), running, store.AuditResult{Outcome: store.OutcomeOK}), store.ErrConflict)
	a, err := after.GetApproval(ctx(t), pending.ID)
	must(t, "GetApproval", err)
	if a.State != store.ApprovalExpired {
		t.Errorf("pending approval after restart is %s, want %s", a.State, store.ApprovalExpired)
	}
}

// testOddText checks that text a tool or model produced, NUL bytes and
// invalid UTF-8 included, never makes a write fail. A dialect whose text
// type cannot hold such bytes may replace them with U+FFFD.
func testOddText(t *testing.T, s store.Store) {
	odd := "boom\x00 \xff\xfe tail"
	id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "t", User: odd})
	must(t, "BeginAudit", err)
	must(t, "FinishAudit", s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeError, Error: odd}))
	recs, err := s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	replaced := strings.ReplaceAll(strings.ToValidUTF8(odd, "\uFFFD"), "\x00", "\uFFFD")
	if len(recs) != 1 || (recs[0].Error != odd && recs[0].Error != replaced) {
		t.Errorf("error text %q came back as %+v", odd, recs)
	}
	c := newConversation(t, s, "")
	_, err = s.AppendMessages(ctx(t), c.ID, store.Message{Message: llm.ToolResult(llm.ToolCall{ID: odd, Name: "t"}, odd, true), Agent: odd})
	must(t, "AppendMessages", err)
	a, err := s.CreateApproval(ctx(t), store.Approval{Tool: "t", ConversationID: c.ID})
	must(t, "CreateApproval", err)
	_, err = s.DecideApproval(ctx(t), a.ID, store.Decision{State: store.ApprovalDenied, Reason: odd})
	must(t, "DecideApproval", err)
}
