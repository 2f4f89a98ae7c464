package postgres

import (
	"context"
	"errors"
)

// claim tells whether instance id is gone, for InterruptRunning.
//
// An instance is gone when it no longer holds its advisory lock: taking
// that lock here succeeds only if its session is gone. When it is, claim
// keeps the lock (and life) until release, so that the check stays true
// while its records are interrupted. Live replicas keep their running calls.
// (Two instance IDs whose hashes collide look alive to each other; that
// errs on the safe side.)
func (db *DB) claim(ctx context.Context, id string) (release func(), dead bool, err error) {
	db.lifeMu.Lock()
	if db.life == nil {
		db.lifeMu.Unlock()
		return nil, false, errors.New("database is closed")
	}
	if err := db.life.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockSpace, id).Scan(&dead); err != nil || !dead {
		db.lifeMu.Unlock()
		return nil, false, err
	}
	return func() {
		_, _ = db.life.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, lockSpace, id)
		db.lifeMu.Unlock()
	}, true, nil
}
