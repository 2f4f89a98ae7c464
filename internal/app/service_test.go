//go:build unix

package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// stops records the parts a service logs as stopped, in order.
type stops struct {
	slog.Handler
	parts chan string
}

func (h stops) Enabled(context.Context, slog.Level) bool { return true }

func (h stops) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "stopped" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == logKeyPart {
			h.parts <- a.Value.String()
		}
		return true
	})
	return nil
}

func (h stops) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h stops) WithGroup(string) slog.Handler      { return h }

// servedApp is an App with one stdio MCP server and a followed config
// file, so that every part of the service runs; serve starts it on a
// loopback port and returns its base URL and the channel Serve's error
// arrives on.
type servedApp struct {
	app    *App
	server mcphost.ServerConfig
	ln     net.Listener
	// prof serves the profiles, as `serve --pprof` does.
	prof  net.Listener
	parts chan string
}

func newServedApp(t *testing.T) *servedApp {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "switchboard.yaml")
	srv := mcptest.StdioServer(t, "keep")
	text := "data: " + filepath.Join(dir, "data") + "\nmcpServers:\n" + serverEntry(srv)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Path: path, Cwd: dir, Getenv: func(string) string { return "" }})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	parts := make(chan string, 64)
	a, err := New(cfg, &Options{Reload: load, Logger: slog.New(stops{parts: parts})})
	if err != nil {
		t.Fatal(err)
	}
	a.sweepEvery = 10 * time.Millisecond // the sweep runs while we watch
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &servedApp{app: a, server: srv, ln: ln, prof: prof, parts: parts}
}

// serve runs Serve until ctx ends and returns its result's channel, once
// the service is ready.
func (s *servedApp) serve(t *testing.T, ctx context.Context) <-chan error {
	t.Helper()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.app.Serve(ctx, s.ln, func(string) { close(ready) }, &ServeOptions{Profiles: s.prof}) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Serve ended before it was ready: %v", err)
	}
	return done
}

// callEcho calls the MCP server's echo through the REST API and checks
// the answer, so the HTTP server, the gate, the audit trail and the MCP
// child all took part.
func (s *servedApp) callEcho(t *testing.T) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	url := "http://" + s.ln.Addr().String() + "/api/v1/tools/keep__echo/call"
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"arguments":{"text":"hi"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("calling keep__echo: %s", resp.Status)
	}
}

// alive reports whether any of the MCP server's processes still runs.
func (s *servedApp) alive() bool {
	for _, pid := range mcptest.PIDs(s.server) {
		if syscall.Kill(pid, 0) == nil {
			return true
		}
	}
	return false
}

// received drains the parts logged as stopped.
func (s *servedApp) received() []string {
	var out []string
	for {
		select {
		case p := <-s.parts:
			out = append(out, p)
		default:
			return out
		}
	}
}

// TestServeStopsEveryGoroutine serves with every part running (an MCP
// child, the config follower, the sweep, the pin recheck, the HTTP API),
// makes a tool call, stops, and finds no goroutine and no child process
// left, and the call's audit record finished.
func TestServeStopsEveryGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newServedApp(t)
	defer s.app.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := s.serve(t, ctx)
	if !s.alive() {
		t.Fatal("Serve did not start the MCP server")
	}
	s.callEcho(t)
	resp, err := http.Get("http://" + s.prof.Addr().String() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatalf("the service's profiles: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the service's profiles: %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if s.alive() {
		t.Fatal("the MCP server's process outlived Serve")
	}
	if _, err := net.Dial("tcp", s.prof.Addr().String()); err == nil {
		t.Fatal("the profiles' listener outlived Serve")
	}
	st, err := s.app.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.ListAudit(t.Context(), store.AuditFilter{User: "local", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit records after Serve: %+v; want the one call, ok", recs)
	}
	if err := s.app.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestServeStopsInOrder checks the written shutdown order: the HTTP API
// stops accepting and drains first, the watchers go next, then the MCP
// servers, and the traces and the audit trail are flushed last.
func TestServeStopsInOrder(t *testing.T) {
	s := newServedApp(t)
	defer s.app.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := s.serve(t, ctx)
	if got := s.received(); len(got) != 0 {
		t.Fatalf("parts stopped while serving: %v", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	want := []string{"http", "pins", "config", "entries", "users", "sweep", "mcp", "profiles", "tracing", "audit"}
	if got := s.received(); !slices.Equal(got, want) {
		t.Fatalf("parts stopped in the order %v; want %v", got, want)
	}
	if s.app.svc.Load() != nil {
		t.Fatal("the app still points at the stopped service")
	}
}

// TestServeFailingPartStopsAll takes the listener away under the HTTP
// server: Serve stops every other part in order, the MCP child included,
// and returns the failure rather than hanging or leaking.
func TestServeFailingPartStopsAll(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newServedApp(t)
	defer s.app.Close()
	done := s.serve(t, t.Context())
	s.callEcho(t)
	s.ln.Close()
	var err error
	select {
	case err = <-done:
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatal("Serve did not stop after its listener failed")
	}
	if err == nil || !strings.Contains(err.Error(), "http") || !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Serve after its listener closed = %v; want the http part's failure", err)
	}
	if got := s.received(); len(got) != 10 || got[0] != "http" || got[9] != "audit" {
		t.Fatalf("parts stopped: %v; want all ten, http first", got)
	}
	if s.alive() {
		t.Fatal("the MCP server's process outlived the failed Serve")
	}
}

// TestServeInterruptedWhileStarting ends ctx before the service is
// ready: Serve returns without an error and without calling ready.
func TestServeInterruptedWhileStarting(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s := newServedApp(t)
	defer s.app.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.app.Serve(ctx, s.ln, func(string) { t.Error("ready called for a stopped service") }, nil); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve with an ended context = %v", err)
	}
}
