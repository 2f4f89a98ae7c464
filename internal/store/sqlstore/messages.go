package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

const messageCols = `id, conversation_id, seq, role, content, tool_calls, tool_call_id, tool_name, is_error, agent, run_id, created_at, summary_of`

// AppendMessages implements [store.Store].
//
// Bumping conversations.last_seq first both reserves the Seqs and locks the
// conversation row, so concurrent appenders queue there and the Seqs stay
// gapless: a failed transaction rolls the bump back with its messages.
func (db *DB) AppendMessages(ctx context.Context, conversationID string, msgs ...store.Message) ([]store.Message, error) {
	if len(msgs) == 0 {
		return nil, fmt.Errorf("appending to conversation %q: %w: no messages", conversationID, store.ErrInvalid)
	}
	out := make([]store.Message, len(msgs))
	rows := make([][]any, len(msgs))
	for i, m := range msgs {
		if m.Role == "" {
			return nil, fmt.Errorf("appending to conversation %q: %w: message %d has no role", conversationID, store.ErrInvalid, i)
		}
		m.ID = store.NewID()
		m.ConversationID = conversationID
		m.CreatedAt = orNow(m.CreatedAt)
		content, err := encodeParts(m.Content)
		if err != nil {
			return nil, fmt.Errorf("appending to conversation %q: %w", conversationID, err)
		}
		calls, err := encodeCalls(m.ToolCalls)
		if err != nil {
			return nil, fmt.Errorf("appending to conversation %q: %w", conversationID, err)
		}
		out[i] = m
		rows[i] = []any{m.ID, m.ConversationID, nil, string(m.Role), content, calls, m.ToolCallID, m.ToolName, m.IsError, m.Agent, m.RunID, db.ts(m.CreatedAt), m.SummaryOf}
	}
	err := db.write(ctx, func(tx conn) error {
		var last int64
		err := tx.QueryRowContext(ctx, `UPDATE conversations SET last_seq = last_seq + ?, updated_at = ? WHERE id = ? RETURNING last_seq`,
			len(msgs), db.ts(now()), conversationID).Scan(&last)
		if err != nil {
			return notFound(err, "no such conversation")
		}
		first := last - int64(len(msgs)) + 1
		for i := range out {
			out[i].Seq = first + int64(i)
			rows[i][2] = out[i].Seq
		}
		// One multi-row INSERT per chunk saves a round trip per message;
		// chunks keep the parameter count under SQLite's limit.
		for chunk := range slices.Chunk(rows, 200) {
			q := `INSERT INTO messages (` + messageCols + `) VALUES ` +
				strings.Repeat(`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), `, len(chunk)-1) + `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
			if _, err := tx.ExecContext(ctx, q, slices.Concat(chunk...)...); err != nil {
				return db.classify(err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("appending to conversation %q: %w", conversationID, err)
	}
	return out, nil
}

// ListMessages implements [store.Store].
func (db *DB) ListMessages(ctx context.Context, conversationID string, f store.MessageFilter) ([]store.Message, error) {
	q := `SELECT ` + messageCols + ` FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq`
	args := []any{conversationID, f.AfterSeq}
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	msgs, err := db.queryMessages(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing messages of conversation %q: %w", conversationID, err)
	}
	if len(msgs) == 0 {
		// Tell an empty conversation from a missing one only when it matters.
		if _, err := db.GetConversation(ctx, conversationID); err != nil {
			return nil, fmt.Errorf("listing messages: %w", err)
		}
	}
	return msgs, nil
}

func (db *DB) queryMessages(ctx context.Context, q string, args ...any) ([]store.Message, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []store.Message
	for rows.Next() {
		var (
			m             store.Message
			role          string
			content, call string
		)
		if err := rows.Scan(&m.ID, &m.ConversationID, &m.Seq, &role, &content, &call, &m.ToolCallID, &m.ToolName,
			&m.IsError, &m.Agent, &m.RunID, tsCol{&m.CreatedAt}, &m.SummaryOf); err != nil {
			return nil, err
		}
		m.Role = llm.Role(role)
		if m.Content, err = decodeParts(content); err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		if m.ToolCalls, err = decodeCalls(call); err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}
