package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const approvalCols = `id, conversation_id, run_id, call_id, tool, server, arguments, state, scope, reason, decided_by, created_at, expires_at, decided_at, user_name, content`

func scanApproval(row interface{ Scan(...any) error }) (store.Approval, error) {
	var (
		a     store.Approval
		conv  sql.NullString
		args  []byte
		state string
		scope string
		body  string
	)
	err := row.Scan(&a.ID, &conv, &a.RunID, &a.CallID, &a.Tool, &a.Server, &args, &state, &scope, &a.Reason, &a.DecidedBy,
		tsCol{&a.CreatedAt}, tsCol{&a.ExpiresAt}, tsCol{&a.DecidedAt}, &a.User, &body)
	if body != "" {
		a.Content = json.RawMessage(body)
	}
	a.ConversationID = conv.String
	a.Arguments = rawBytes(args)
	a.State = store.ApprovalState(state)
	a.Scope = store.ApprovalScope(scope)
	return a, err
}

// CreateApproval implements [store.Store].
func (db *DB) CreateApproval(ctx context.Context, a store.Approval) (store.Approval, error) {
	if err := a.Validate(); err != nil {
		return store.Approval{}, fmt.Errorf("creating approval: %w", err)
	}
	if a.ID == "" {
		a.ID = store.NewID()
	}
	a.Arguments = append([]byte(nil), a.Arguments...)
	if len(a.Arguments) == 0 {
		a.Arguments = nil
	}
	a.State, a.Scope, a.DecidedBy, a.DecidedAt, a.Content = store.ApprovalPending, "", "", time.Time{}, nil
	a.CreatedAt = orNow(a.CreatedAt)
	a.ExpiresAt = norm(a.ExpiresAt)
	// instance names this process as the one waiting, so that another
	// replica expires the approval if this one dies (ExpireOrphaned).
	_, err := db.w.ExecContext(ctx, `INSERT INTO approvals (`+approvalCols+`, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, nullStr(a.ConversationID), a.RunID, a.CallID, a.Tool, a.Server, db.argsCol(a.Arguments), string(a.State), string(a.Scope),
		a.Reason, a.DecidedBy, db.ts(a.CreatedAt), db.ts(a.ExpiresAt), db.ts(a.DecidedAt), a.User, "", db.instance)
	if err != nil {
		return store.Approval{}, fmt.Errorf("creating approval for %s: %w", a.Tool, db.classify(err))
	}
	return a, nil
}

// DecideApproval implements [store.Store].
//
// The UPDATE only matches a pending, unexpired row, so of two deciders the
// database lets exactly one change it; the loser sees no row changed.
func (db *DB) DecideApproval(ctx context.Context, id string, d store.Decision) (store.Approval, error) {
	if err := d.Validate(); err != nil {
		return store.Approval{}, fmt.Errorf("deciding approval %q: %w", id, err)
	}
	if d.Scope == "" {
		d.Scope = store.ScopeOnce
	}
	var out store.Approval
	err := db.write(ctx, func(tx conn) error {
		at := now()
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET state = ?, scope = ?, reason = ?, decided_by = ?, decided_at = ?, content = ?
			WHERE id = ? AND state = 'pending' AND (expires_at IS NULL OR expires_at > ?)`,
			string(d.State), string(d.Scope), d.Reason, d.DecidedBy, db.ts(at), string(d.Content), id, db.ts(at))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		a, err := scanApproval(tx.QueryRowContext(ctx, `SELECT `+approvalCols+` FROM approvals WHERE id = ?`, id))
		if err != nil {
			return notFound(err, "no such approval")
		}
		if n == 0 {
			if a.State == store.ApprovalPending {
				return fmt.Errorf("approval expired at %s: %w", a.ExpiresAt.Format(time.RFC3339), store.ErrConflict)
			}
			return fmt.Errorf("approval is already %s: %w", a.State, store.ErrConflict)
		}
		if a.State == store.ApprovalApproved && a.Scope == store.ScopeConversation && a.ConversationID != "" {
			if err := db.addGrant(ctx, tx, store.Grant{ConversationID: a.ConversationID, Tool: a.Tool, ApprovalID: a.ID, GrantedBy: a.DecidedBy, CreatedAt: at}); err != nil {
				return err
			}
		}
		out = a
		return nil
	})
	if err != nil {
		return store.Approval{}, fmt.Errorf("deciding approval %q: %w", id, err)
	}
	db.changed(ctx, store.TopicApprovals, id)
	return out, nil
}

// GetApproval implements [store.Store].
func (db *DB) GetApproval(ctx context.Context, id string) (store.Approval, error) {
	a, err := scanApproval(db.r.QueryRowContext(ctx, `SELECT `+approvalCols+` FROM approvals WHERE id = ?`, id))
	if err != nil {
		return store.Approval{}, fmt.Errorf("getting approval %q: %w", id, notFound(err, "no such approval"))
	}
	return a, nil
}

// TakeApprovalContent implements [store.Store].
func (db *DB) TakeApprovalContent(ctx context.Context, id string) (json.RawMessage, error) {
	var body string
	err := db.write(ctx, func(tx conn) error {
		if err := tx.QueryRowContext(ctx, `SELECT content FROM approvals WHERE id = ?`, id).Scan(&body); err != nil {
			return notFound(err, "no such approval")
		}
		if body == "" {
			return nil
		}
		// Matching the value read makes the take exactly-once even where
		// the transaction does not lock the row it read.
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET content = '' WHERE id = ? AND content = ?`, id, body)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			body = ""
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("taking the content of approval %q: %w", id, err)
	}
	if body == "" {
		return nil, nil
	}
	return json.RawMessage(body), nil
}

// ListPendingApprovals implements [store.Store].
func (db *DB) ListPendingApprovals(ctx context.Context, f store.ApprovalFilter) ([]store.Approval, error) {
	q := `SELECT ` + prefixed("a.", approvalCols) + ` FROM approvals a`
	var args []any
	where := ` WHERE a.state = 'pending'`
	if f.User != "" {
		// A conversation's approvals are its owner's; the others are
		// the asking user's.
		q += ` LEFT JOIN conversations c ON c.id = a.conversation_id`
		where += ` AND (c.user_name = ? OR (a.conversation_id IS NULL AND a.user_name = ?))`
		args = append(args, f.User, f.User)
	}
	q += where
	if f.ConversationID != "" {
		q += ` AND a.conversation_id = ?`
		args = append(args, f.ConversationID)
	}
	q += ` ORDER BY a.created_at, a.id`
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing pending approvals: %w", err)
	}
	defer rows.Close()
	var out []store.Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, fmt.Errorf("listing pending approvals: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing pending approvals: %w", err)
	}
	return out, nil
}

// ExpirePending implements [store.Store].
//
// Where replicas share the database ([Dialect.Claim] set), the approvals a
// live replica waits on must stay pending: this process's own, those of
// no known instance, and those of replicas that are gone are expired.
func (db *DB) ExpirePending(ctx context.Context, before time.Time) (int64, error) {
	if db.d.Claim == nil {
		n, err := db.expirePending(ctx, before, ``)
		if err != nil {
			return 0, fmt.Errorf("expiring pending approvals: %w", err)
		}
		return n, nil
	}
	n, err := db.expirePending(ctx, before, ` AND instance IN ('', ?)`, db.instance)
	if err != nil {
		return 0, fmt.Errorf("expiring pending approvals: %w", err)
	}
	others, err := db.orphanCandidates(ctx)
	if err != nil {
		return n, fmt.Errorf("expiring pending approvals: %w", err)
	}
	for _, id := range others {
		release, dead, err := db.d.Claim(ctx, id)
		if err != nil {
			return n, fmt.Errorf("expiring pending approvals of instance %s: %w", id, err)
		}
		if !dead {
			continue
		}
		m, err := db.expirePending(ctx, before, ` AND instance = ?`, id)
		release()
		if err != nil {
			return n, fmt.Errorf("expiring pending approvals of instance %s: %w", id, err)
		}
		n += m
	}
	return n, nil
}

// expirePending expires the approvals pending since before that cond (an
// SQL condition starting with AND, taking args) selects.
func (db *DB) expirePending(ctx context.Context, before time.Time, cond string, args ...any) (int64, error) {
	res, err := db.w.ExecContext(ctx, `UPDATE approvals SET state = 'expired', decided_at = ?,
		reason = 'Switchboard restarted before anyone decided'
		WHERE state = 'pending' AND created_at < ?`+cond, append([]any{db.ts(now()), db.ts(norm(before))}, args...)...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if n > 0 {
		db.changed(ctx, store.TopicApprovals, "")
	}
	// Form values whose waiting call is gone (the same processes as
	// above) will never be taken: they are cleared rather than kept.
	if _, err := db.w.ExecContext(ctx, `UPDATE approvals SET content = ''
		WHERE content <> '' AND decided_at < ?`+cond, append([]any{db.ts(norm(before))}, args...)...); err != nil {
		return n, err
	}
	return n, nil
}

// ExpireApproval implements [store.Store].
//
// The change is announced like a decision, so that a call waiting in
// another process learns at once that the person cancelled.
func (db *DB) ExpireApproval(ctx context.Context, id, reason string) error {
	err := db.write(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET state = 'expired', decided_at = ?, reason = ?
			WHERE id = ? AND state = 'pending'`, db.ts(now()), reason, id)
		if err != nil {
			return fmt.Errorf("expiring approval %q: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("expiring approval %q: %w", id, err)
		}
		if n == 1 {
			return nil
		}
		a, err := scanApproval(tx.QueryRowContext(ctx, `SELECT `+approvalCols+` FROM approvals WHERE id = ?`, id))
		if err != nil {
			return fmt.Errorf("expiring approval %q: %w", id, notFound(err, "no such approval"))
		}
		return fmt.Errorf("expiring approval %q: it is already %s: %w", id, a.State, store.ErrConflict)
	})
	if err == nil {
		db.changed(ctx, store.TopicApprovals, id)
	}
	return err
}

// prefixed qualifies each column of a ", "-separated list with p.
func prefixed(p, cols string) string {
	return p + strings.ReplaceAll(cols, ", ", ", "+p)
}
