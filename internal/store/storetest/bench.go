package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Bench measures the writes on an agent's hot path: appending messages and
// auditing tool calls, serially and from parallel goroutines. open must
// return a new, empty store; Bench closes it.
func Bench(b *testing.B, open func(b *testing.B) store.Store) {
	args := json.RawMessage(`{"path":"docs/readme.md","offset":0,"limit":200}`)
	msg := store.Message{Message: llm.Message{
		Role:      llm.RoleAssistant,
		Content:   []llm.Part{llm.TextPart("Let me read the file first, then summarise it for you.")},
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "files__read_file", Arguments: args}},
	}}

	b.Run("AppendMessage", func(b *testing.B) {
		s := openBench(b, open)
		c, err := s.CreateConversation(b.Context(), store.Conversation{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.AppendMessages(b.Context(), c.ID, msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendMessageParallel", func(b *testing.B) {
		s := openBench(b, open)
		// One conversation per goroutine, as with separate chats.
		b.RunParallel(func(pb *testing.PB) {
			c, err := s.CreateConversation(b.Context(), store.Conversation{})
			if err != nil {
				b.Error(err)
				return
			}
			for pb.Next() {
				if _, err := s.AppendMessages(b.Context(), c.ID, msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("Audit", func(b *testing.B) {
		s := openBench(b, open)
		for b.Loop() {
			auditCall(b, s, args)
		}
	})
	b.Run("AuditParallel", func(b *testing.B) {
		s := openBench(b, open)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				auditCall(b, s, args)
			}
		})
	})
}

// auditCall does what the agent does around one tool call.
func auditCall(b *testing.B, s store.Store, args json.RawMessage) {
	id, err := s.BeginAudit(b.Context(), store.AuditRecord{
		User: "ann", ConversationID: "c", RunID: "r", CallID: "call_1",
		Tool: "files__read_file", Server: "files", Arguments: args, Approval: store.AuditAutoApproved,
	})
	if err != nil {
		b.Error(err)
		return
	}
	if err := s.FinishAudit(b.Context(), id, store.AuditResult{Outcome: store.OutcomeOK, Duration: time.Millisecond, ResultBytes: 512}); err != nil {
		b.Error(err)
	}
}

func openBench(b *testing.B, open func(b *testing.B) store.Store) store.Store {
	s := open(b)
	b.Cleanup(func() { _ = s.Close() })
	return s
}
