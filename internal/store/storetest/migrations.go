package storetest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// LatestMigration is the highest migration number among the files
// NNNN_name.sql of migrations: the schema version a fresh database reaches.
func LatestMigration(t testing.TB, migrations fs.FS) int {
	t.Helper()
	files, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	latest := 0
	for _, f := range files {
		num, _, _ := strings.Cut(path.Base(f), "_")
		if n, err := strconv.Atoi(num); err == nil && n > latest {
			latest = n
		}
	}
	return latest
}

// V1Database says, in one dialect, how to write a database as it was at
// schema version 1, before roles: the migrations table, the row that
// marks 0001_init.sql applied, and how users' creation times are written.
type V1Database struct {
	CreateMigrations string // CREATE TABLE schema_migrations ...
	MarkInit         string // INSERT INTO schema_migrations ... version 1
	// CreatedAt holds the users' created_at values, oldest first, as SQL
	// literals.
	CreatedAt [3]string
}

// RolesMigration: a database from before roles (schema version 1) with
// users gets its oldest user as the one admin; the others become ordinary
// users and keep their keys and globs, and user changes still move
// UsersVersion. raw is a connection to an empty database, closed here;
// migrations holds the dialect's migration files; open opens the store on
// that database, which migrates it.
func RolesMigration(t *testing.T, raw *sql.DB, migrations fs.FS, d V1Database, open func() store.Store) {
	t.Helper()
	init, err := fs.ReadFile(migrations, "0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		d.CreateMigrations,
		string(init),
		d.MarkInit,
		`INSERT INTO users (id, name, key_hash, permissions, created_at) VALUES
			('b', 'bob', '` + hashOf("b") + `', '["calculator"]', ` + d.CreatedAt[1] + `),
			('a', 'ann', '` + hashOf("a") + `', '["*"]', ` + d.CreatedAt[0] + `),
			('c', 'cy', '` + hashOf("c") + `', '[]', ` + d.CreatedAt[2] + `)`,
	} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("building a version 1 database: %v", err)
		}
	}
	raw.Close()

	db := open()
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
