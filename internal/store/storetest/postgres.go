package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"
)

const defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresAdmin returns a connection to the PostgreSQL server tests use
// (SWITCHBOARD_TEST_POSTGRES, or the local server's database test) and its
// DSN. It skips the test when there is no server, unless CI is set: CI must
// not pass by skipping. The caller must have registered the "pgx"
// database/sql driver (importing internal/store/postgres does).
func PostgresAdmin(t testing.TB) (*sql.DB, string) {
	t.Helper()
	dsn := os.Getenv("SWITCHBOARD_TEST_POSTGRES")
	if dsn == "" {
		dsn = defaultPostgresDSN
	}
	db, err := sql.Open("pgx", dsn)
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if db != nil {
			_ = db.Close()
		}
		msg := "PostgreSQL unreachable (set SWITCHBOARD_TEST_POSTGRES to a DSN): " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, dsn
}

// PostgresSchema creates a throw-away schema on the server PostgresAdmin
// reaches, dropped when the test ends, and returns a DSN whose search_path
// selects it, so tests run in parallel without seeing each other's tables.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	db, dsn := PostgresAdmin(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "sb_test_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.WithoutCancel(t.Context()), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("SWITCHBOARD_TEST_POSTGRES must be a postgres:// URL, got %q", dsn)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// PostgresDatabase creates a throw-away database named prefix_<random> on
// the server PostgresAdmin reaches, dropped (with its connections) when
// the test ends, and returns its DSN. Unlike a schema, a database lets
// separate processes share it the way replicas share a deployment's.
func PostgresDatabase(t testing.TB, prefix string) string {
	t.Helper()
	admin, dsn := PostgresAdmin(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), `CREATE DATABASE `+name); err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.WithoutCancel(t.Context()), `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
