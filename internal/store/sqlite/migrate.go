package sqlite

import (
	"context"
	"embed"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// migrations holds NNNN_name.sql files, applied in order, each once. A file
// is never edited after release; changes go in a new, higher number.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies the migrations the database lacks, with their
// schema_migrations rows, in one transaction: a failure leaves the database
// as it was, and a second process opening it meanwhile waits on the write
// lock (the transaction begins IMMEDIATE) and then finds nothing left to do.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := sqlstore.Migrate(ctx, tx, migrations, dialect()); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing migrations: %w", err)
	}
	return nil
}
