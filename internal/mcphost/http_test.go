package mcphost_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// requireHeader rejects requests that lack the header.
func requireHeader(key, value string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(key) != value {
				http.Error(w, "missing "+key, http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestRemoteTransports(t *testing.T) {
	httpSC, _ := mcptest.HTTPServer(t, "http", requireHeader("X-Api-Key", "k1"))
	httpSC.Headers = map[string]string{"X-Api-Key": "k1"}
	sseSC, _ := mcptest.SSEServer(t, "sse", requireHeader("X-Api-Key", "k2"))
	sseSC.Headers = map[string]string{"X-Api-Key": "k2"}
	autoHTTP, _ := mcptest.HTTPServer(t, "auto-http", nil)
	autoHTTP.Transport = mcphost.TransportAuto
	autoSSE, _ := mcptest.SSEServer(t, "auto-sse", nil)
	autoSSE.Transport = mcphost.TransportAuto
	stateless, _ := mcptest.HTTPServer(t, "stateless", nil, mcptest.ModeNormal, mcptest.ModeStateless)

	tests := []struct {
		sc   mcphost.ServerConfig
		want mcphost.Transport
	}{
		{httpSC, mcphost.TransportHTTP},
		{sseSC, mcphost.TransportSSE},
		{autoHTTP, mcphost.TransportHTTP},
		{autoSSE, mcphost.TransportSSE},
		{stateless, mcphost.TransportHTTP},
	}
	var scs []mcphost.ServerConfig
	for _, tt := range tests {
		scs = append(scs, tt.sc)
	}
	p := startPool(t, scs, nil)
	for _, tt := range tests {
		t.Run(tt.sc.Name, func(t *testing.T) {
			st := statusOf(t, p, tt.sc.Name)
			if st.State != mcphost.StateReady || st.Transport != tt.want {
				t.Fatalf("state %s over %q (%s), want ready over %s", st.State, st.Transport, st.LastError, tt.want)
			}
			if tt.sc.Name == "stateless" && st.ProtocolVersion != "2026-07-28" {
				t.Errorf("stateless server at %q, want 2026-07-28", st.ProtocolVersion)
			}
			echo := findToolOf(t, p, tt.sc.Name, "echo")
			res, err := call(t, echo, map[string]any{"text": tt.sc.Name})
			if err != nil || res.Text() != tt.sc.Name {
				t.Errorf("echo: %v, %v", res, err)
			}
		})
	}
}

func TestRemoteWrongHeaderFails(t *testing.T) {
	t.Parallel()
	sc, _ := mcptest.HTTPServer(t, "h", requireHeader("X-Api-Key", "right"))
	sc.Headers = map[string]string{"X-Api-Key": "wrong"}
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	if st := statusOf(t, p, "h"); st.State == mcphost.StateReady || st.LastError == "" {
		t.Errorf("status %+v: want not ready with a reason", st)
	}
}

func TestFailedHealthCheckReconnects(t *testing.T) {
	tests := []struct {
		name   string
		want   string // protocol version: stateful servers speak 2025-11-25, stateless ones 2026-07-28
		ping   time.Duration
		byCall bool // the outage is noticed through a failed call, not a tick
	}{
		{"ping", "2025-11-25", 50 * time.Millisecond, false},
		{"tools/list where 2026-07-28 has no ping", "2026-07-28", 50 * time.Millisecond, false},
		{"failed call with periodic checks off", "2026-07-28", -1, true},
		{"failed call in a session with periodic checks off", "2025-11-25", -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var broken atomic.Bool
			breaker := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if broken.Load() {
						http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			modes := []mcptest.Mode{mcptest.ModeNormal}
			if tt.want == "2026-07-28" {
				modes = append(modes, mcptest.ModeStateless)
			}
			sc, _ := mcptest.HTTPServer(t, "checked", breaker, modes...)
			opts := testOptions()
			opts.PingInterval = tt.ping
			p := startPool(t, []mcphost.ServerConfig{sc}, opts)
			if st := statusOf(t, p, "checked"); st.State != mcphost.StateReady || st.ProtocolVersion != tt.want {
				t.Fatalf("status %s at %q (%s), want ready at %s", st.State, st.ProtocolVersion, st.LastError, tt.want)
			}
			echo := findTool(t, p, "echo")
			broken.Store(true)
			if tt.byCall {
				res, err := call(t, echo, map[string]any{"text": "x"})
				if err == nil {
					t.Fatalf("call to a broken server succeeded: %+v", res)
				}
				t.Logf("call to the broken server: %v", err)
			}
			st := waitState(t, p, "checked", mcphost.StateRestarting)
			if st.LastError == "" {
				t.Errorf("no LastError after the failed check")
			}
			if len(p.Tools()) != 0 {
				t.Errorf("tools of a down server still listed: %v", toolNames(p.Tools()))
			}
			broken.Store(false)
			waitState(t, p, "checked", mcphost.StateReady)
			if res, err := call(t, echo, map[string]any{"text": "back"}); err != nil || res.Text() != "back" {
				t.Errorf("echo after recovery: %v, %v", res, err)
			}
		})
	}
}

// findToolOf finds a tool by server: the pool lists tools ordered by server.
func findToolOf(t *testing.T, p *mcphost.Pool, server, name string) toolT {
	t.Helper()
	n := 0
	for _, st := range p.Status() {
		if st.Name == server {
			break
		}
		n += st.Tools
	}
	ts := p.Tools()
	for _, tl := range ts[n:] {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("server %q has no tool %q", server, name)
	return nil
}
