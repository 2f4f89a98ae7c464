package mcpserve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
)

// initialize opens a session as caller with a raw initialize and returns
// its ID, or "" and the status when it was refused.
func initialize(t *testing.T, endpoint, caller string) (string, int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(callerHeader, caller)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.Header.Get("Mcp-Session-Id"), resp.StatusCode, string(body)
}

func deleteSession(t *testing.T, endpoint, caller, id string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(callerHeader, caller)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSessionCapPerCaller checks that one caller cannot open more than
// MaxSessions sessions, that the refusal says what to do, that other
// callers are not affected, and that ending a session frees its place.
func TestSessionCapPerCaller(t *testing.T) {
	srv := newServer(t, catalogue(), nil, &mcpserve.Options{MaxSessions: 3})
	ts := serveHTTP(t, srv)
	var ids []string
	for range 3 {
		id, code, body := initialize(t, ts.URL, "alice")
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize within the cap: %d %s", code, body)
		}
		ids = append(ids, id)
	}
	id, code, body := initialize(t, ts.URL, "alice")
	if code != http.StatusTooManyRequests || id != "" {
		t.Fatalf("initialize past the cap: %d, session %q; want 429 and none", code, id)
	}
	for _, want := range []string{"too many open MCP sessions", "limit is 3", "DELETE", "expire"} {
		if !strings.Contains(body, want) {
			t.Errorf("refusal %s does not say %q", body, want)
		}
	}
	if _, code, body := initialize(t, ts.URL, "bob"); code != http.StatusOK {
		t.Errorf("another caller is refused: %d %s", code, body)
	}
	// Another caller cannot free alice's place with her session ID.
	if code := deleteSession(t, ts.URL, "bob", ids[0]); code != http.StatusForbidden {
		t.Errorf("DELETE of another caller's session: %d, want 403", code)
	}
	if code := deleteSession(t, ts.URL, "alice", ids[0]); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	if _, code, body := initialize(t, ts.URL, "alice"); code != http.StatusOK {
		t.Errorf("initialize after a DELETE freed a place: %d %s", code, body)
	}
}

// TestIdleSessionsExpire checks that a session nobody uses ends after
// SessionTimeout, which frees its place under the cap, and that a session
// in use stays. The handler runs in a synctest bubble, on a recorder.
func TestIdleSessionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcpserve.New(catalogue(), gate.New(nil), &mcpserve.Options{SessionTimeout: time.Minute, MaxSessions: 2})
		defer srv.Close()
		h := srv.Handler()
		do := func(session, body string) *httptest.ResponseRecorder { return postAs(t.Context(), h, session, body) }
		open := func() string {
			w := do("", initializeBody)
			if w.Code != http.StatusOK {
				t.Fatalf("initialize: %d %s", w.Code, w.Body)
			}
			id := w.Header().Get("Mcp-Session-Id")
			do(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			return id
		}
		idle, busy := open(), open()
		if w := do("", initializeBody); w.Code != http.StatusTooManyRequests {
			t.Fatalf("third session: %d, want 429", w.Code)
		}
		for range 3 {
			time.Sleep(40 * time.Second) // fake time in the bubble
			if w := do(busy, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); w.Code != http.StatusOK {
				t.Fatalf("tools/list on the busy session: %d %s", w.Code, w.Body)
			}
		}
		synctest.Wait()
		if w := do(idle, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); w.Code != http.StatusNotFound {
			t.Errorf("idle session after 2m: %d, want 404 (expired)", w.Code)
		}
		if w := do("", initializeBody); w.Code != http.StatusOK {
			t.Errorf("initialize after the idle session expired: %d %s", w.Code, w.Body)
		}
	})
}

// TestStatelessProtocol checks that a client on protocol 2026-07-28 is
// served without a session: discovery, tools/list and tools/call work, no
// Mcp-Session-Id is handed out, and the session cap does not apply.
func TestStatelessProtocol(t *testing.T) {
	audit := &auditLog{}
	srv := newServer(t, catalogue(), testGate(audit, ""), &mcpserve.Options{MaxSessions: 1})
	ts := serveHTTP(t, srv)
	for i := range 3 { // past the cap of 1
		c := mcp.NewClient(&mcp.Implementation{Name: "new-client", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint:   ts.URL,
			HTTPClient: &http.Client{Transport: &headerTransport{caller: "alice", base: http.DefaultTransport}},
			MaxRetries: -1,
		}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatalf("client %d: connecting: %v", i, err)
		}
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Errorf("negotiated %s, want 2026-07-28", v)
		}
		if cs.ID() != "" {
			t.Errorf("client %d got session %q; a stateless server hands out none", i, cs.ID())
		}
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if len(res.Tools) == 0 {
			t.Errorf("tools/list returned no tools")
		}
		got, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files__read", Arguments: map[string]any{"path": "a"}})
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		if diff := cmp.Diff(`{"path":"a"}`, text(got)); diff != "" {
			t.Errorf("tools/call result mismatch (-want +got):\n%s", diff)
		}
		cs.Close()
	}
	audit.mu.Lock()
	defer audit.mu.Unlock()
	if len(audit.begun) != 3 {
		t.Errorf("%d calls audited, want 3", len(audit.begun))
	}
}

// TestClassicProtocolKeepsSessions checks that a 2025 client still gets a
// session next to stateless clients.
func TestClassicProtocolKeepsSessions(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	ts := serveHTTP(t, srv)
	c := mcp.NewClient(&mcp.Implementation{Name: "old-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.ID() == "" || cs.InitializeResult().ProtocolVersion != "2025-06-18" {
		t.Errorf("session %q on %s; want a session on 2025-06-18", cs.ID(), cs.InitializeResult().ProtocolVersion)
	}
}
