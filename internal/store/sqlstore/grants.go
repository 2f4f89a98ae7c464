package sqlstore

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// addGrant inserts g unless the conversation already grants the tool; the
// first grant (and who made it) is kept.
func (db *DB) addGrant(ctx context.Context, e execer, g store.Grant) error {
	_, err := e.ExecContext(ctx, `INSERT INTO grants (conversation_id, tool, approval_id, granted_by, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_id, tool) DO NOTHING`,
		g.ConversationID, g.Tool, g.ApprovalID, g.GrantedBy, db.ts(orNow(g.CreatedAt)))
	if err != nil {
		return fmt.Errorf("granting %s in conversation %q: %w", g.Tool, g.ConversationID, db.classify(err))
	}
	return nil
}

// AddGrant implements [store.Store].
func (db *DB) AddGrant(ctx context.Context, g store.Grant) error {
	if g.ConversationID == "" || g.Tool == "" {
		return fmt.Errorf("adding grant: %w: conversation and tool are required", store.ErrInvalid)
	}
	return db.addGrant(ctx, db.w, g)
}

// HasGrant implements [store.Store].
func (db *DB) HasGrant(ctx context.Context, conversationID, tool string) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM grants WHERE conversation_id = ? AND tool = ?`, conversationID, tool).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("checking grant of %s in conversation %q: %w", tool, conversationID, err)
	}
	return n > 0, nil
}

// ListGrants implements [store.Store].
func (db *DB) ListGrants(ctx context.Context, conversationID string) ([]store.Grant, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT conversation_id, tool, approval_id, granted_by, created_at
		FROM grants WHERE conversation_id = ? ORDER BY tool`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("listing grants of conversation %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []store.Grant
	for rows.Next() {
		var g store.Grant
		if err := rows.Scan(&g.ConversationID, &g.Tool, &g.ApprovalID, &g.GrantedBy, tsCol{&g.CreatedAt}); err != nil {
			return nil, fmt.Errorf("listing grants of conversation %q: %w", conversationID, err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing grants of conversation %q: %w", conversationID, err)
	}
	return out, nil
}

// RecordUsage implements [store.Store].
func (db *DB) RecordUsage(ctx context.Context, u store.Usage) error {
	if u.RunID == "" {
		return fmt.Errorf("recording usage: %w: run ID is empty", store.ErrInvalid)
	}
	_, err := db.w.ExecContext(ctx, `INSERT INTO usage (run_id, conversation_id, agent, model, input_tokens, output_tokens, router, started_at, finished_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.RunID, u.ConversationID, u.Agent, u.Model, u.InputTokens, u.OutputTokens, u.Router, db.ts(norm(u.StartedAt)), db.ts(norm(u.FinishedAt)))
	if err != nil {
		return fmt.Errorf("recording usage of run %q: %w", u.RunID, db.classify(err))
	}
	return nil
}

// SumUsage implements [store.Store].
func (db *DB) SumUsage(ctx context.Context, conversationID string) (store.UsageTotals, error) {
	var t store.UsageTotals
	err := db.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0)
		FROM usage WHERE conversation_id = ?`, conversationID).Scan(&t.Runs, &t.InputTokens, &t.OutputTokens)
	if err != nil {
		return store.UsageTotals{}, fmt.Errorf("summing usage of conversation %q: %w", conversationID, err)
	}
	return t, nil
}
