package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// TestProfileAdminOnly checks that profiles are refused off loopback, and
// with users only an admin's key reads them.
func TestProfileAdminOnly(t *testing.T) {
	cfg := config.Default()
	cfg.Data = filepath.Join(t.TempDir(), "data")
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	wide, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Profile(ctx, wide); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("Profile on %s: %v, want a refusal naming loopback", wide.Addr(), err)
	}
	wide.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Profile(ctx, ln) }()
	get := func(key string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+ln.Addr().String()+"/debug/pprof/cmdline", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(""); code != http.StatusOK {
		t.Errorf("without users: %d, want 200", code)
	}
	_, admin, err := a.AddUser(ctx, "root", true, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	_, user, err := a.AddUser(ctx, "alice", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, key string
		want      int
	}{
		{"no key", "", http.StatusUnauthorized},
		{"wrong key", "sb_nope", http.StatusUnauthorized},
		{"not an admin", user, http.StatusUnauthorized},
		{"admin", admin, http.StatusOK},
	} {
		if code := get(tt.key); code != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, code, tt.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Profile after cancel: %v", err)
	}
}

// TestApplyGC checks that the config's GC target and memory limit reach the
// runtime, and that -1 leaves the runtime's own.
func TestApplyGC(t *testing.T) {
	oldGC := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(oldGC)
		debug.SetMemoryLimit(oldLimit)
	})
	cfg := config.Default()
	a := &App{cfg: cfg, logger: slog.New(slog.DiscardHandler)}
	a.applyGC(config.Server{GCPercent: 150, MemoryLimitMB: 512})
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent %d, want 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 512<<20 {
		t.Errorf("memory limit %d, want %d", got, 512<<20)
	}
	a.applyGC(config.Server{GCPercent: -1, MemoryLimitMB: -1})
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent after -1: %d, want 150 kept", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 512<<20 {
		t.Errorf("memory limit after -1: %d, want kept", got)
	}
}
