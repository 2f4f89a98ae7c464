package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestStoreRetriesAfterFailure checks that a failed open is not kept for
// the App's life: once the cause is gone, the next Store opens the
// database; every later call gets the same store; after Close, Store fails.
func TestStoreRetriesAfterFailure(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	// A file where the data directory should be makes the open fail.
	if err := os.WriteFile(cfg.Data, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	if st, err := a.Store(t.Context()); err == nil || st != nil {
		t.Fatalf("Store with a file in place of the data directory = %v, %v; want an error", st, err)
	}
	if err := os.Remove(cfg.Data); err != nil {
		t.Fatal(err)
	}
	first, err := a.Store(t.Context())
	if err != nil {
		t.Fatalf("Store after the cause went away: %v", err)
	}
	again, err := a.Store(t.Context())
	if err != nil || again != first {
		t.Fatalf("second Store = %v, %v; want the same store", again, err)
	}
	if _, err := first.ListAgents(t.Context()); err != nil {
		t.Fatalf("using the store: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := a.Store(t.Context()); !errors.Is(err, errClosed) {
		t.Fatalf("Store after Close = %v, want errClosed", err)
	}
	if _, err := first.ListAgents(t.Context()); err == nil {
		t.Fatal("the store still answers after Close")
	}
}

// TestOneShotBuildsNoMetrics checks that an App that does not serve builds
// no Prometheus registry and no tracer: only Serve creates them.
func TestOneShotBuildsNoMetrics(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Registry().Call(t.Context(), "current_time", &tools.CallRequest{}); err != nil {
		t.Fatalf("calling a built-in tool: %v", err)
	}
	if m, tr := a.meter(), a.tracer(); m != nil || tr != nil {
		t.Fatalf("metrics %v, tracing %v; want none outside Serve", m, tr)
	}
}
