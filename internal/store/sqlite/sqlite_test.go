package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

func open(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "switchboard.db"))
	})
}

func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	before := open(t, path)
	after := open(t, path)
	storetest.Restart(t, before, after)
}
