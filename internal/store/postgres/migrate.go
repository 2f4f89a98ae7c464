package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// migrations holds NNNN_name.sql files, numbered like the sqlite dialect's,
// applied in order, each once. A file is never edited after release; changes
// go in a new, higher number.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies the migrations the schema lacks, with their
// schema_migrations rows, in one transaction, while holding an advisory lock
// named after the schema: replicas starting together queue on the lock, and
// the later ones find nothing left to do.
func (db *DB) migrate(ctx context.Context) (err error) {
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer conn.Close()
	const key = `hashtext('switchboard-migrate:' || current_schema())`
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		return fmt.Errorf("taking migration lock: %w", err)
	}
	defer func() {
		// A session lock outlives a failed transaction; release it before
		// the connection goes back to the pool.
		if _, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`); uerr != nil && err == nil {
			err = fmt.Errorf("releasing migration lock: %w", uerr)
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	if err := sqlstore.Migrate(ctx, tx, migrations, db.dialect()); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing migrations: %w", err)
	}
	return nil
}
