package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// TestRolesMigrationPromotesOldest: a database from before roles (schema
// version 1) with users gets its oldest user as the one admin; the others
// become ordinary users and keep their keys and globs.
func TestRolesMigrationPromotesOldest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	storetest.RolesMigration(t, raw, os.DirFS("migrations"), storetest.V1Database{
		CreateMigrations: `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
		MarkInit:         `INSERT INTO schema_migrations VALUES (1, '0001_init.sql', 1)`,
		CreatedAt:        [3]string{`1000`, `2000`, `3000`},
	}, func() store.Store { return open(t, path) })
}
