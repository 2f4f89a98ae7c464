package postgres_test

import (
	"database/sql"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// TestRolesMigrationPromotesOldest: a database from before roles (schema
// version 1) with users gets its oldest user as the one admin; the others
// become ordinary users and keep their keys and globs.
func TestRolesMigrationPromotesOldest(t *testing.T) {
	dsn := schemaDSN(t)
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	storetest.RolesMigration(t, raw, os.DirFS("migrations"), storetest.V1Database{
		CreateMigrations: `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
		MarkInit:         `INSERT INTO schema_migrations (version, name) VALUES (1, '0001_init.sql')`,
		CreatedAt:        [3]string{`'2026-01-01T00:00:00Z'`, `'2026-01-02T00:00:00Z'`, `'2026-01-03T00:00:00Z'`},
	}, func() store.Store { return open(t, dsn) })
}
