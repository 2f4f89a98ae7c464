package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// Example shows a chat turn with a tool call, audited before it runs.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "switchboard-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	c, err := db.CreateConversation(ctx, store.Conversation{ID: "demo", User: "ann"})
	if err != nil {
		log.Fatal(err)
	}
	call := llm.ToolCall{ID: "call_1", Name: "calculator", Arguments: []byte(`{"expr":"6*7"}`)}
	_, err = db.AppendMessages(ctx, c.ID,
		store.Message{Message: llm.UserText("What is 6 times 7?")},
		store.Message{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, RunID: "run-1"})
	if err != nil {
		log.Fatal(err)
	}
	id, err := db.BeginAudit(ctx, store.AuditRecord{
		User: "ann", ConversationID: c.ID, RunID: "run-1", CallID: call.ID,
		Tool: call.Name, Arguments: call.Arguments, Approval: store.AuditAutoApproved,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := db.FinishAudit(ctx, id, store.AuditResult{Outcome: store.OutcomeOK, ResultBytes: 2}); err != nil {
		log.Fatal(err)
	}
	if _, err := db.AppendMessages(ctx, c.ID, store.Message{Message: llm.ToolResult(call, "42", false), RunID: "run-1"}); err != nil {
		log.Fatal(err)
	}

	msgs, err := db.ListMessages(ctx, c.ID, store.MessageFilter{})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Println(m.Seq, m.Role, m.Text(), len(m.ToolCalls))
	}
	recs, err := db.ListAudit(ctx, store.AuditFilter{ConversationID: c.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(recs[0].Tool, recs[0].Outcome, string(recs[0].Arguments))
	// Output:
	// 1 user What is 6 times 7? 0
	// 2 assistant  1
	// 3 tool 42 0
	// calculator ok {"expr":"6*7"}
}
