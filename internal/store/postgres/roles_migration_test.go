package postgres_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
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
	init, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
		string(init),
		`INSERT INTO schema_migrations (version, name) VALUES (1, '0001_init.sql')`,
		`INSERT INTO users (id, name, key_hash, permissions, created_at) VALUES
			('b', 'bob', '` + hashOf("b") + `', '["calculator"]', '2026-01-02T00:00:00Z'),
			('a', 'ann', '` + hashOf("a") + `', '["*"]', '2026-01-01T00:00:00Z'),
			('c', 'cy', '` + hashOf("c") + `', '[]', '2026-01-03T00:00:00Z')`,
	} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("building a version 1 database: %v", err)
		}
	}
	raw.Close()

	db := open(t, dsn)
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
	v1, err := db.UsersVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUser(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	if v2, err := db.UsersVersion(t.Context()); err != nil || v2 == v1 {
		t.Errorf("UsersVersion after a delete = %d, %v; want a change from %d", v2, err, v1)
	}
}

// hashOf is the hex SHA-256 of s, as key hashes are stored.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
