package sqlstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// PutMCPAnswer implements [store.Store]. Answers left over from questions
// nobody waits for any more are dropped here, so the table stays small
// without a sweeper of its own.
func (db *DB) PutMCPAnswer(ctx context.Context, a store.MCPAnswer) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("relaying an MCP answer: %w", err)
	}
	a.CreatedAt = orNow(a.CreatedAt)
	if _, err := db.w.ExecContext(ctx, `DELETE FROM mcp_answers WHERE created_at < ?`, db.ts(now().Add(-store.MCPAnswerTTL))); err != nil {
		return fmt.Errorf("relaying an MCP answer: dropping old ones: %w", db.classify(err))
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO mcp_answers (session, target, body, created_at) VALUES (?, ?, ?, ?)`,
		a.Session, a.Target, string(a.Body), db.ts(a.CreatedAt)); err != nil {
		return fmt.Errorf("relaying an MCP answer for session %s: %w", a.Session, db.classify(err))
	}
	db.changed(ctx, store.TopicMCPAnswers, store.WatchKey(a.Session, a.Target))
	return nil
}

// TakeMCPAnswers implements [store.Store]: one DELETE ... RETURNING, so two
// takers never get the same answer.
func (db *DB) TakeMCPAnswers(ctx context.Context, session, target string) ([]store.MCPAnswer, error) {
	rows, err := db.w.QueryContext(ctx, `DELETE FROM mcp_answers WHERE session = ? AND target = ? RETURNING id, body, created_at`, session, target)
	if err != nil {
		return nil, fmt.Errorf("taking MCP answers for session %s: %w", session, db.classify(err))
	}
	defer rows.Close()
	type row struct {
		id int64
		a  store.MCPAnswer
	}
	var got []row
	for rows.Next() {
		r := row{a: store.MCPAnswer{Session: session, Target: target}}
		var body string
		if err := rows.Scan(&r.id, &body, tsCol{&r.a.CreatedAt}); err != nil {
			return nil, fmt.Errorf("taking MCP answers for session %s: %w", session, err)
		}
		r.a.Body = []byte(body)
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("taking MCP answers for session %s: %w", session, db.classify(err))
	}
	// RETURNING promises no order; answers are delivered as they came.
	sort.Slice(got, func(i, j int) bool { return got[i].id < got[j].id })
	out := make([]store.MCPAnswer, len(got))
	for i, r := range got {
		out[i] = r.a
	}
	return out, nil
}
