package sqlstore

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// InterruptRunning implements [store.Store]: it marks interrupted the
// running audit records of instances that are gone.
//
// Without [Dialect.Claim] (SQLite serves one process) every running record
// that another instance began counts as stale: call it only from the
// long-running process (serve), never from a short command that shares the
// database while serve runs. With Claim, live instances keep their running
// calls.
func (db *DB) InterruptRunning(ctx context.Context) (int64, error) {
	if db.d.Claim == nil {
		n, err := db.interrupt(ctx, `instance <> ?`, db.instance)
		if err != nil {
			return 0, fmt.Errorf("interrupting running audit records: %w", err)
		}
		if db.journal != nil {
			m, err := db.journal.recoverDead(func(instance string, recs []store.AuditRecord) (int64, error) {
				return db.interruptJournaled(ctx, instance, recs)
			})
			n += m
			if err != nil {
				return n, fmt.Errorf("interrupting running audit records: %w", err)
			}
		}
		return n, nil
	}
	instances, err := db.runningInstances(ctx)
	if err != nil {
		return 0, fmt.Errorf("interrupting running audit records: %w", err)
	}
	var total int64
	for _, id := range instances {
		n, err := db.interruptInstance(ctx, id)
		if err != nil {
			return total, fmt.Errorf("interrupting running audit records of instance %s: %w", id, err)
		}
		total += n
	}
	return total, nil
}

// runningInstances lists the other instances with running records.
func (db *DB) runningInstances(ctx context.Context) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT DISTINCT instance FROM audit WHERE outcome = 'running' AND instance <> ?`, db.instance)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var instances []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		instances = append(instances, id)
	}
	return instances, rows.Err()
}

// interruptInstance interrupts the running records of instance id if it is
// dead, holding its claim meanwhile so that the check stays true.
func (db *DB) interruptInstance(ctx context.Context, id string) (int64, error) {
	release, dead, err := db.d.Claim(ctx, id)
	if err != nil || !dead {
		return 0, err
	}
	defer release()
	return db.interrupt(ctx, `instance = ?`, id)
}

// interrupt marks interrupted the running records that cond (one
// placeholder, for arg) selects.
func (db *DB) interrupt(ctx context.Context, cond string, arg any) (int64, error) {
	res, err := db.w.ExecContext(ctx, `UPDATE audit SET outcome = 'interrupted', finished_at = ?,
		error = ?
		WHERE outcome = 'running' AND `+cond, db.ts(now()), interruptedError, arg)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
