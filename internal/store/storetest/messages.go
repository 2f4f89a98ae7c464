package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func userText(s string) llm.Message { return llm.UserText(s) }

func newConversation(t *testing.T, s store.Store, user string) store.Conversation {
	t.Helper()
	c, err := s.CreateConversation(ctx(t), store.Conversation{User: user})
	must(t, "CreateConversation", err)
	return c
}

func testMessages(t *testing.T, s store.Store) {
	c := newConversation(t, s, "")
	first, err := s.AppendMessages(ctx(t), c.ID, store.Message{Message: userText("one")})
	must(t, "AppendMessages", err)
	more, err := s.AppendMessages(ctx(t), c.ID,
		store.Message{Message: llm.AssistantText("two"), Agent: "bob", RunID: "run-1"},
		store.Message{Message: userText("three")})
	must(t, "AppendMessages", err)
	var seqs []int64
	for _, m := range append(first, more...) {
		if m.ID == "" || m.ConversationID != c.ID {
			t.Errorf("appended message %+v: want an ID and conversation %q", m, c.ID)
		}
		seqs = append(seqs, m.Seq)
	}
	diff(t, "seqs", []int64{1, 2, 3}, seqs)

	got, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	diff(t, "ListMessages", append(first, more...), got)

	tail, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{AfterSeq: 1, Limit: 1})
	must(t, "ListMessages after 1", err)
	diff(t, "ListMessages after 1, limit 1", more[:1], tail)

	conv, err := s.GetConversation(ctx(t), c.ID)
	must(t, "GetConversation", err)
	if conv.UpdatedAt.Before(more[0].CreatedAt.Add(-time.Second)) {
		t.Errorf("UpdatedAt %v did not move with the append at %v", conv.UpdatedAt, more[0].CreatedAt)
	}

	empty := newConversation(t, s, "")
	none, err := s.ListMessages(ctx(t), empty.ID, store.MessageFilter{})
	must(t, "ListMessages of an empty conversation", err)
	if len(none) != 0 {
		t.Errorf("empty conversation has %d messages", len(none))
	}

	_, err = s.ListMessages(ctx(t), "nope", store.MessageFilter{})
	wantErr(t, "ListMessages of a missing conversation", err, store.ErrNotFound)
	_, err = s.AppendMessages(ctx(t), "nope", store.Message{Message: userText("x")})
	wantErr(t, "AppendMessages to a missing conversation", err, store.ErrNotFound)
	_, err = s.AppendMessages(ctx(t), c.ID)
	wantErr(t, "AppendMessages of nothing", err, store.ErrInvalid)
	_, err = s.AppendMessages(ctx(t), c.ID, store.Message{Message: userText("ok")}, store.Message{})
	wantErr(t, "AppendMessages with an empty role", err, store.ErrInvalid)
	got, err = s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	if len(got) != 3 {
		t.Errorf("a refused append left %d messages, want 3", len(got))
	}
}

func testMessageRoundTrip(t *testing.T, s store.Store) {
	c := newConversation(t, s, "")
	call := llm.ToolCall{ID: "call_1", Name: "files__read", Arguments: json.RawMessage(`{"path": "a.txt", "n": 1.50}`)}
	msgs := []store.Message{
		{Message: llm.Message{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("be brief")}}},
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{
			llm.TextPart("what is this?"),
			llm.ImagePart("image/png", []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}),
			llm.ImageURLPart("https://example.com/cat.jpg"),
		}}},
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("let me look")}, ToolCalls: []llm.ToolCall{
			call,
			{ID: "call_2", Name: "calc", Arguments: json.RawMessage(`{"expr": "1+`)}, // malformed, kept as it came
			{ID: "call_3", Name: "now"},
		}}, Agent: "bob", RunID: "run-1"},
		{Message: llm.ToolResult(call, "contents ✓ \u2028 \"quoted\"", false), RunID: "run-1"},
		{Message: llm.Message{
			Role: llm.RoleTool, ToolCallID: "call_2", ToolName: "calc", IsError: true,
			Content: []llm.Part{llm.TextPart("bad expression")},
		}, RunID: "run-1"},
		{Message: llm.Message{Role: llm.RoleTool, ToolCallID: "call_3", ToolName: "now"}, RunID: "run-1"},
		// A summary of the messages up to seq 5, as the agent writes it.
		{Message: llm.UserText("the user asked what a picture showed"), SummaryOf: 5, RunID: "run-2"},
	}
	appended, err := s.AppendMessages(ctx(t), c.ID, msgs...)
	must(t, "AppendMessages", err)
	got, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	diff(t, "messages as appended", appended, got)
	for i := range msgs {
		if i < len(got) {
			diff(t, fmt.Sprintf("message %d", i), msgs[i].Message, got[i].Message)
		}
	}
}

// testConcurrentAppends checks that Seqs stay unique and gapless when several
// goroutines append to one conversation at once.
func testConcurrentAppends(t *testing.T, s store.Store) {
	c := newConversation(t, s, "")
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				text := fmt.Sprintf("w%d-%d", w, i)
				batch := []store.Message{{Message: userText(text)}}
				if i%3 == 0 {
					batch = append(batch, store.Message{Message: llm.AssistantText("after " + text)})
				}
				if _, err := s.AppendMessages(ctx(t), c.ID, batch...); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent AppendMessages: %v", err)
	}
	got, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	want := workers * (each + (each+2)/3)
	if len(got) != want {
		t.Fatalf("%d messages, want %d", len(got), want)
	}
	for i, m := range got {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has Seq %d: Seqs must run 1..%d without gaps or repeats", i, m.Seq, want)
		}
		// A batch of two stays together.
		if m.Role == llm.RoleAssistant && (i == 0 || m.Text() != "after "+got[i-1].Text()) {
			t.Errorf("message Seq %d: a batch was split by another append", m.Seq)
		}
	}
}

func testDeleteCascades(t *testing.T, s store.Store) {
	c := newConversation(t, s, "ann")
	other := newConversation(t, s, "ann")
	for _, id := range []string{c.ID, other.ID} {
		_, err := s.AppendMessages(ctx(t), id, store.Message{Message: userText("hi")})
		must(t, "AppendMessages", err)
		_, err = s.CreateApproval(ctx(t), store.Approval{ConversationID: id, Tool: "files__write"})
		must(t, "CreateApproval", err)
		must(t, "AddGrant", s.AddGrant(ctx(t), store.Grant{ConversationID: id, Tool: "files__read"}))
	}
	auditID, err := s.BeginAudit(ctx(t), store.AuditRecord{ConversationID: c.ID, Tool: "files__read"})
	must(t, "BeginAudit", err)
	must(t, "RecordUsage", s.RecordUsage(ctx(t), store.Usage{RunID: store.NewID(), ConversationID: c.ID, InputTokens: 5}))

	must(t, "DeleteConversation", s.DeleteConversation(ctx(t), c.ID))

	_, err = s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	wantErr(t, "ListMessages after delete", err, store.ErrNotFound)
	pending, err := s.ListPendingApprovals(ctx(t), store.ApprovalFilter{User: "ann"})
	must(t, "ListPendingApprovals", err)
	if len(pending) != 1 || pending[0].ConversationID != other.ID {
		t.Errorf("pending approvals after delete: %+v, want only the other conversation's", pending)
	}
	granted, err := s.HasGrant(ctx(t), c.ID, "files__read")
	must(t, "HasGrant", err)
	if granted {
		t.Error("grant survived its conversation")
	}
	msgs, err := s.ListMessages(ctx(t), other.ID, store.MessageFilter{})
	must(t, "ListMessages of the other conversation", err)
	if len(msgs) != 1 {
		t.Errorf("other conversation has %d messages, want 1", len(msgs))
	}
	// Audit and usage outlive the conversation.
	recs, err := s.ListAudit(ctx(t), store.AuditFilter{ConversationID: c.ID})
	must(t, "ListAudit", err)
	if len(recs) != 1 || recs[0].ID != auditID {
		t.Errorf("audit after delete: %+v, want record %s", recs, auditID)
	}
	tot, err := s.SumUsage(ctx(t), c.ID)
	must(t, "SumUsage", err)
	diff(t, "usage after delete", store.UsageTotals{Runs: 1, InputTokens: 5}, tot)
}
