package web_test

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// The parts the browser tests' stacks share.

// testStore opens an empty SQLite store for one test.
func testStore(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), nil)
	if err != nil {
		t.Fatalf("opening store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// warnLogger logs warnings and errors to the test's output.
func warnLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// everythingPool is a pool of the reference server-everything over stdio
// with o (its timeouts set here), not started yet: the caller starts it
// once what its callbacks reach is ready. It is closed with the test.
func everythingPool(t *testing.T, o mcphost.Options) *mcphost.Pool {
	t.Helper()
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/server-everything")
	o.ConnectTimeout, o.PingInterval = 30*time.Second, -1
	pool := mcphost.NewPool([]mcphost.ServerConfig{{
		Name: "everything", Command: node,
		Args: []string{filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"},
	}}, &o)
	t.Cleanup(func() { _ = pool.Close() })
	return pool
}
