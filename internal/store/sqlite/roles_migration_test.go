package sqlite_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
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
	init, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
		string(init),
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', 1)`,
		`INSERT INTO users (id, name, key_hash, permissions, created_at) VALUES
			('b', 'bob', '` + hashOf("b") + `', '["calculator"]', 2000),
			('a', 'ann', '` + hashOf("a") + `', '["*"]', 1000),
			('c', 'cy', '` + hashOf("c") + `', '[]', 3000)`,
	} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("building a version 1 database: %v", err)
		}
	}
	raw.Close()

	db := open(t, path)
	users, err := db.ListUsers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]store.Role{}
	for _, u := range users {
		roles[u.Name] = u.Role
	}
	if roles["ann"] != store.RoleAdmin || roles["bob"] != store.RoleUser || roles["cy"] != store.RoleUser {
		t.Errorf("roles after migration = %v; want ann (oldest) admin, the rest users", roles)
	}
	u, err := db.GetUserByKeyHash(t.Context(), hashOf("b"))
	if err != nil || len(u.Permissions) != 1 || u.Permissions[0] != "calculator" {
		t.Errorf("bob after migration = %+v, %v; want his key and globs kept", u, err)
	}
}

// hashOf is the hex SHA-256 of s, as key hashes are stored.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
