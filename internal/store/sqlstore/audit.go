package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const auditCols = `id, time, user_name, conversation_id, agent, run_id, call_id, tool, server, arguments, approval, outcome, error, duration_ms, result_bytes, finished_at, user_id`

// Queries of the audit trail's hot writes, run by the committer.
const (
	beginAuditQuery = `INSERT INTO audit (` + auditCols + `, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', '', 0, 0, NULL, ?, ?)`
	// finishAuditQuery changes only a running record, so that finishing
	// twice, or after InterruptRunning, changes nothing.
	finishAuditQuery = `UPDATE audit SET outcome = ?, error = ?, duration_ms = ?, result_bytes = ?, finished_at = ?,
		approval = CASE WHEN ? = '' THEN approval ELSE ? END
		WHERE id = ? AND outcome = 'running'`
	// finishedAuditQuery writes a journaled call's whole record at its
	// finish (see journal); the primary key refuses a second finish.
	finishedAuditQuery  = finishedAuditInsert + finishedAuditRow
	finishedAuditInsert = `INSERT INTO audit (` + auditCols + `, instance) VALUES `
	finishedAuditRow    = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// finishedAuditRows is how many finishes one statement of
// finishedAuditRowsQuery writes.
const finishedAuditRows = 64

// finishedAuditRowsQuery is finishedAuditQuery for finishedAuditRows
// records at once: a batch of finishes runs it rather than one statement
// each, because a statement's own cost (database/sql, binding, SQLite's
// end of statement) was half of what a finish cost when each had its own.
var finishedAuditRowsQuery = finishedAuditInsert + strings.Repeat(finishedAuditRow+", ", finishedAuditRows-1) + finishedAuditRow

// auditQueries are the queries the committer runs.
var auditQueries = []string{beginAuditQuery, finishAuditQuery, finishedAuditQuery, finishedAuditRowsQuery}

// auditMultiRow says which of them a batch may run several of as one.
var auditMultiRow = map[string]multiRow{finishedAuditQuery: {query: finishedAuditRowsQuery, n: finishedAuditRows}}

// BeginAudit implements [store.Store]. It returns once the record is
// committed, in a group commit with the other calls beginning or finishing
// at the same time (see committer).
func (db *DB) BeginAudit(ctx context.Context, r store.AuditRecord) (string, error) {
	if err := r.Validate(); err != nil {
		return "", fmt.Errorf("beginning audit record: %w", err)
	}
	id := store.NewID()
	if db.journal != nil {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("beginning audit record of %s: %w", r.Tool, err)
		}
		r.ID, r.Time, r.Outcome = id, orNow(r.Time), store.OutcomeRunning
		if err := db.journal.begin(r); err != nil {
			return "", fmt.Errorf("beginning audit record of %s: %w", r.Tool, err)
		}
		return id, nil
	}
	_, err := db.audit.do(ctx, beginAuditQuery,
		id, db.ts(orNow(r.Time)), r.User, r.ConversationID, r.Agent, r.RunID, r.CallID, r.Tool, r.Server,
		db.argsCol(r.Arguments), string(r.Approval), r.UserID, db.instance)
	if err != nil {
		return "", fmt.Errorf("beginning audit record of %s: %w", r.Tool, err)
	}
	return id, nil
}

// FinishAudit implements [store.Store]. Like BeginAudit it returns once
// the change is committed.
func (db *DB) FinishAudit(ctx context.Context, id string, res store.AuditResult) error {
	if err := res.Validate(); err != nil {
		return fmt.Errorf("finishing audit record %q: %w", id, err)
	}
	if rec, ok := db.journaled(id); ok {
		_, err := db.audit.do(ctx, finishedAuditQuery, db.finishedArgs(rec, res)...)
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("finishing audit record %q: already finished: %w", id, store.ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("finishing audit record %q: %w", id, err)
		}
		db.journal.finished(id)
		return nil
	}
	n, err := db.audit.do(ctx, finishAuditQuery,
		string(res.Outcome), res.Error, res.Duration.Milliseconds(), res.ResultBytes, db.ts(now()),
		string(res.Approval), string(res.Approval), id)
	if err != nil {
		return fmt.Errorf("finishing audit record %q: %w", id, err)
	}
	if n == 1 {
		return nil
	}
	// Nothing changed: say why. The record cannot become running again,
	// so reading after the commit tells the truth.
	var outcome string
	if err := db.w.QueryRowContext(ctx, `SELECT outcome FROM audit WHERE id = ?`, id).Scan(&outcome); err != nil {
		return fmt.Errorf("finishing audit record %q: %w", id, notFound(err, "no such record"))
	}
	return fmt.Errorf("finishing audit record %q: already %s: %w", id, outcome, store.ErrConflict)
}

// FinishAuditLater is FinishAudit for a caller that must not wait for the
// commit: it queues the change for the next group commit and returns;
// done is told, on the committing goroutine, nil once it is committed or
// why it was not made. A crash before the commit leaves the record
// running, which the next start marks interrupted, as it does a call
// whose process died before FinishAudit. ListAudit, in this process,
// sees every finish queued before it was called.
func (db *DB) FinishAuditLater(id string, res store.AuditResult, done func(error)) {
	if err := res.Validate(); err != nil {
		done(fmt.Errorf("finishing audit record %q: %w", id, err))
		return
	}
	if rec, ok := db.journaled(id); ok {
		db.audit.doLater(func(_ int64, err error) {
			if err != nil {
				done(fmt.Errorf("finishing audit record %q: %w", id, err))
				return
			}
			db.journal.finished(id)
			done(nil)
		}, finishedAuditQuery, db.finishedArgs(rec, res)...)
		return
	}
	db.audit.doLater(func(rows int64, err error) {
		switch {
		case err != nil:
			done(fmt.Errorf("finishing audit record %q: %w", id, err))
		case rows != 1:
			done(fmt.Errorf("finishing audit record %q: it is not running (finished already, or interrupted): %w", id, store.ErrConflict))
		default:
			done(nil)
		}
	}, finishAuditQuery, string(res.Outcome), res.Error, res.Duration.Milliseconds(), res.ResultBytes, db.ts(now()),
		string(res.Approval), string(res.Approval), id)
}

// ListAudit implements [store.Store].
func (db *DB) ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("listing audit records: %w", err)
	}
	if err := db.audit.flush(ctx); err != nil {
		return nil, fmt.Errorf("listing audit records: %w", err)
	}
	// The journals first: a call they show running that finishes
	// meanwhile is then found in the table by withJournals.
	var begun []store.AuditRecord
	if db.journal != nil && (f.Outcome == "" || f.Outcome == store.OutcomeRunning) {
		others, err := db.journal.othersBegun()
		if err != nil {
			return nil, fmt.Errorf("listing audit records: %w", err)
		}
		for _, r := range append(db.journal.snapshot(), others...) {
			if f.Match(&r) {
				begun = append(begun, r)
			}
		}
	}
	out, err := db.listTable(ctx, f)
	if err != nil || len(begun) == 0 {
		return out, err
	}
	return db.withJournals(ctx, out, begun, store.PageSize(f.Limit, 100))
}

// listTable is ListAudit over the table alone.
func (db *DB) listTable(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, error) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.Tool != "" {
		add(db.d.ToolMatch(f.Tool))
	}
	if f.Server != "" {
		add(`server = ?`, f.Server)
	}
	if f.User != "" {
		add(`user_name = ?`, f.User)
	}
	if f.ConversationID != "" {
		add(`conversation_id = ?`, f.ConversationID)
	}
	if !f.Since.IsZero() {
		add(`time >= ?`, db.ts(norm(f.Since)))
	}
	if !f.Until.IsZero() {
		add(`time < ?`, db.ts(norm(f.Until)))
	}
	if f.Outcome != "" {
		add(`outcome = ?`, string(f.Outcome))
	}
	q := `SELECT ` + auditCols + ` FROM audit`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY time DESC, id DESC LIMIT ?`
	args = append(args, store.PageSize(f.Limit, 100))
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing audit records: %w", err)
	}
	defer rows.Close()
	var out []store.AuditRecord
	for rows.Next() {
		var (
			r       store.AuditRecord
			args    []byte
			outcome string
		)
		if err := rows.Scan(&r.ID, tsCol{&r.Time}, &r.User, &r.ConversationID, &r.Agent, &r.RunID, &r.CallID, &r.Tool, &r.Server,
			&args, &r.Approval, &outcome, &r.Error, &r.DurationMS, &r.ResultBytes, tsCol{&r.FinishedAt}, &r.UserID); err != nil {
			return nil, fmt.Errorf("listing audit records: %w", err)
		}
		r.Arguments = rawBytes(args)
		r.Outcome = store.Outcome(outcome)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing audit records: %w", err)
	}
	return out, nil
}

// journaled returns the record of a call this process began in its
// journal and has not finished.
func (db *DB) journaled(id string) (store.AuditRecord, bool) {
	if db.journal == nil {
		return store.AuditRecord{}, false
	}
	return db.journal.lookup(id)
}

// finishedArgs are finishedAuditQuery's arguments for rec ended by res.
func (db *DB) finishedArgs(rec store.AuditRecord, res store.AuditResult) []any {
	// Named string types pass as plain strings: database/sql converts
	// others through reflection, an allocation a value.
	approval := string(rec.Approval)
	if res.Approval != "" {
		approval = string(res.Approval)
	}
	return []any{
		rec.ID, db.ts(rec.Time), rec.User, rec.ConversationID, rec.Agent, rec.RunID, rec.CallID, rec.Tool, rec.Server,
		db.argsCol(rec.Arguments), approval, string(res.Outcome), res.Error, res.Duration.Milliseconds(), res.ResultBytes,
		db.ts(now()), rec.UserID, db.instance,
	}
}
