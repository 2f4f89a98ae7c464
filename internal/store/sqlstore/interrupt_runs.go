package sqlstore

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// InterruptRuns implements [store.RunLog]: the runs still running and the
// approvals still pending of instances that are gone are marked
// interrupted and expired, and the feed wakes whoever follows them.
//
// As with InterruptRunning, without [Dialect.Claim] every other instance
// counts as gone; with it, live replicas keep theirs.
func (db *DB) InterruptRuns(ctx context.Context) (runs, approvals int64, err error) {
	instances, err := db.orphanCandidates(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("interrupting runs of stopped instances: %w", err)
	}
	for _, id := range instances {
		r, a, err := db.interruptRunsOf(ctx, id)
		if err != nil {
			return runs, approvals, fmt.Errorf("interrupting runs of instance %s: %w", id, err)
		}
		runs += r
		approvals += a
	}
	return runs, approvals, nil
}

// orphanCandidates lists the other instances with running runs or pending
// approvals.
func (db *DB) orphanCandidates(ctx context.Context) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT instance FROM runs WHERE state = 'running' AND instance <> ?
		UNION SELECT instance FROM approvals WHERE state = 'pending' AND instance <> '' AND instance <> ?`, db.instance, db.instance)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// interruptRunsOf interrupts instance id's runs and expires its approvals
// if it is gone, holding its claim meanwhile.
func (db *DB) interruptRunsOf(ctx context.Context, id string) (runs, approvals int64, err error) {
	if db.d.Claim != nil {
		release, dead, err := db.d.Claim(ctx, id)
		if err != nil || !dead {
			return 0, 0, err
		}
		defer release()
	}
	at := db.ts(now())
	res, err := db.w.ExecContext(ctx, `UPDATE runs SET state = 'interrupted', finished_at = ? WHERE state = 'running' AND instance = ?`, at, id)
	if err != nil {
		return 0, 0, err
	}
	if runs, err = res.RowsAffected(); err != nil {
		return 0, 0, err
	}
	res, err = db.w.ExecContext(ctx, `UPDATE approvals SET state = 'expired', decided_at = ?,
		reason = 'the Switchboard replica running this call stopped before anyone decided'
		WHERE state = 'pending' AND instance = ?`, at, id)
	if err != nil {
		return runs, 0, err
	}
	if approvals, err = res.RowsAffected(); err != nil {
		return runs, 0, err
	}
	if runs > 0 {
		db.changed(ctx, store.TopicRuns, "")
	}
	if approvals > 0 {
		db.changed(ctx, store.TopicApprovals, "")
	}
	return runs, approvals, nil
}
