package postgres

import (
	"context"
	"fmt"
)

// InterruptRunning implements [store.Store].
//
// A record is stale when the instance that began it no longer holds its
// advisory lock: taking that lock here succeeds only if its session is gone.
// Live replicas keep their running calls. (Two instance IDs whose hashes
// collide look alive to each other; that errs on the safe side.)
func (db *DB) InterruptRunning(ctx context.Context) (int64, error) {
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
// dead, holding its lock meanwhile so that the check stays true.
func (db *DB) interruptInstance(ctx context.Context, id string) (int64, error) {
	db.lifeMu.Lock()
	defer db.lifeMu.Unlock()
	if db.life == nil {
		return 0, fmt.Errorf("database is closed")
	}
	var dead bool
	if err := db.life.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockSpace, id).Scan(&dead); err != nil {
		return 0, err
	}
	if !dead {
		return 0, nil
	}
	defer func() {
		_, _ = db.life.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, lockSpace, id)
	}()
	res, err := db.w.ExecContext(ctx, `UPDATE audit SET outcome = 'interrupted', finished_at = ?,
		error = 'Switchboard stopped before the call finished'
		WHERE outcome = 'running' AND instance = ?`, ts(now()), id)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
