package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const runCols = `id, conversation_id, user_name, state, last_seq, cancel_requested, created_at, finished_at`

var _ store.RunLog = (*DB)(nil)

// BeginRun implements [store.RunLog].
func (db *DB) BeginRun(ctx context.Context, r store.Run) error {
	if r.ID == "" {
		return fmt.Errorf("beginning run: %w: empty ID", store.ErrInvalid)
	}
	r.CreatedAt = orNow(r.CreatedAt)
	_, err := db.w.ExecContext(ctx, `INSERT INTO runs (id, conversation_id, user_name, instance, state, last_seq, created_at) VALUES (?, ?, ?, ?, 'running', 0, ?)`,
		r.ID, r.ConversationID, r.User, db.instance, db.ts(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("beginning run %s: %w", r.ID, db.classify(err))
	}
	return nil
}

// AppendRunEvents implements [store.RunLog]. The events go in one
// transaction with the run's last_seq, then the feed announces them.
func (db *DB) AppendRunEvents(ctx context.Context, runID string, evs ...store.RunEvent) error {
	if len(evs) == 0 {
		return nil
	}
	rows := make([]any, 0, 5*len(evs))
	last := int64(0)
	for _, e := range evs {
		rows = append(rows, runID, e.Seq, e.Kind, string(e.Data), db.ts(orNow(e.CreatedAt)))
		last = max(last, e.Seq)
	}
	err := db.write(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET last_seq = ? WHERE id = ? AND last_seq < ?`, last, runID, last)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			if _, err := db.getRun(ctx, tx, runID); err != nil {
				return err
			}
			return fmt.Errorf("event %d is not after the run's last: %w", last, store.ErrConflict)
		}
		for chunk := range slices.Chunk(rows, 5*150) {
			n := len(chunk) / 5
			q := `INSERT INTO run_events (run_id, seq, kind, data, created_at) VALUES ` +
				strings.Repeat(`(?, ?, ?, ?, ?), `, n-1) + `(?, ?, ?, ?, ?)`
			if _, err := tx.ExecContext(ctx, q, chunk...); err != nil {
				return db.classify(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("appending events to run %s: %w", runID, err)
	}
	db.changed(ctx, store.TopicRuns, runID)
	return nil
}

// FinishRun implements [store.RunLog].
func (db *DB) FinishRun(ctx context.Context, runID string) error {
	res, err := db.w.ExecContext(ctx, `UPDATE runs SET state = 'finished', finished_at = ? WHERE id = ? AND state = 'running'`, db.ts(now()), runID)
	if err != nil {
		return fmt.Errorf("finishing run %s: %w", runID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		if _, err := db.GetRun(ctx, runID); err != nil {
			return err
		}
	}
	db.changed(ctx, store.TopicRuns, runID)
	return nil
}

// CancelRun implements [store.RunLog].
func (db *DB) CancelRun(ctx context.Context, runID string) error {
	res, err := db.w.ExecContext(ctx, `UPDATE runs SET cancel_requested = ? WHERE id = ? AND state = 'running'`, true, runID)
	if err != nil {
		return fmt.Errorf("cancelling run %s: %w", runID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		if _, err := db.GetRun(ctx, runID); err != nil {
			return err
		}
		return fmt.Errorf("cancelling run %s: it is no longer running: %w", runID, store.ErrConflict)
	}
	db.changed(ctx, store.TopicRuns, runID)
	return nil
}

// GetRun implements [store.RunLog].
func (db *DB) GetRun(ctx context.Context, id string) (store.Run, error) {
	r, err := db.getRun(ctx, db.r, id)
	if err != nil {
		return store.Run{}, fmt.Errorf("getting run %s: %w", id, err)
	}
	return r, nil
}

func (db *DB) getRun(ctx context.Context, q queryRower, id string) (store.Run, error) {
	var (
		r     store.Run
		state string
	)
	err := q.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id).
		Scan(&r.ID, &r.ConversationID, &r.User, &state, &r.LastSeq, &r.CancelRequested, tsCol{&r.CreatedAt}, tsCol{&r.FinishedAt})
	r.State = store.RunState(state)
	return r, notFound(err, "no such run")
}

// ListRunEvents implements [store.RunLog].
func (db *DB) ListRunEvents(ctx context.Context, runID string, after int64, limit int) ([]store.RunEvent, error) {
	q := `SELECT seq, kind, data, created_at FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq`
	args := []any{runID, after}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing events of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []store.RunEvent
	for rows.Next() {
		e := store.RunEvent{RunID: runID}
		var data string
		if err := rows.Scan(&e.Seq, &e.Kind, &data, tsCol{&e.CreatedAt}); err != nil {
			return nil, fmt.Errorf("listing events of run %s: %w", runID, err)
		}
		e.Data = []byte(data)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing events of run %s: %w", runID, err)
	}
	return out, nil
}

// PruneRuns deletes the runs, with their events, that ended before the
// given time: events are kept for re-attaching to a run, not as a record
// (the conversation's messages and the audit trail are that). It returns
// how many runs it deleted.
func (db *DB) PruneRuns(ctx context.Context, before time.Time) (int64, error) {
	// Events first: SQLite enforces the cascade only with foreign keys on.
	if _, err := db.w.ExecContext(ctx, `DELETE FROM run_events WHERE run_id IN
		(SELECT id FROM runs WHERE state <> 'running' AND finished_at < ?)`, db.ts(norm(before))); err != nil {
		return 0, fmt.Errorf("pruning run events: %w", err)
	}
	res, err := db.w.ExecContext(ctx, `DELETE FROM runs WHERE state <> 'running' AND finished_at < ?`, db.ts(norm(before)))
	if err != nil {
		return 0, fmt.Errorf("pruning runs: %w", err)
	}
	return res.RowsAffected()
}
