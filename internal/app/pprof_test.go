package app

import (
	"context"
	"fmt"
	"io"
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

// TestProfileRefusesForeignHostAndOrigin: without users the listener
// answers without a key, so a page of another site that rebinds its own
// name to 127.0.0.1 must not read it: a foreign Host, a foreign Origin and
// a cross-site fetch are refused (403, saying why) before anything is
// served; loopback names and the listener's own origin are not.
func TestProfileRefusesForeignHostAndOrigin(t *testing.T) {
	cfg := config.Default()
	cfg.Data = filepath.Join(t.TempDir(), "data")
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Profile(ctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, tt := range []struct {
		name, host string
		headers    map[string]string
		want       int
		wantBody   string
	}{
		{"loopback address", ln.Addr().String(), nil, http.StatusOK, ""},
		{"localhost", fmt.Sprintf("localhost:%d", port), nil, http.StatusOK, ""},
		{"own origin", ln.Addr().String(), map[string]string{"Origin": "http://" + ln.Addr().String()}, http.StatusOK, ""},
		{"rebound name", fmt.Sprintf("attacker.example:%d", port), nil, http.StatusForbidden, "loopback names"},
		{"rebound name without port", "attacker.example", nil, http.StatusForbidden, "loopback names"},
		{"foreign origin", ln.Addr().String(), map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden, "may not read profiles"},
		{"cross-site fetch", ln.Addr().String(), map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "cross-site"},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+ln.Addr().String()+"/debug/pprof/cmdline", nil)
		req.Host = tt.host
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want || !strings.Contains(string(body), tt.wantBody) {
			t.Errorf("%s: %d %q; want %d with %q", tt.name, resp.StatusCode, body, tt.want, tt.wantBody)
		}
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
