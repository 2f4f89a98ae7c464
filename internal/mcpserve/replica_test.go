package mcpserve_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
)

// TestSessionContinuesOnAnotherReplica opens a 2025 session on one Server
// and goes on with it on another that shares the session key, as behind a
// load balancer without sticky sessions: with the go-sdk client, and with
// raw requests for what another caller or a forged ID gets.
func TestSessionContinuesOnAnotherReplica(t *testing.T) {
	key := []byte("a key both replicas are configured with")
	audit := &auditLog{}
	a := serveHTTP(t, newServer(t, catalogue(), &mcpserve.Options{SessionKey: key, Audit: audit}))
	b := serveHTTP(t, newServer(t, catalogue(), &mcpserve.Options{SessionKey: key, Audit: audit}))

	// The client's requests alternate between the replicas.
	var n atomic.Int32
	rr := &headerTransport{caller: "alice", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if n.Add(1)%2 == 0 {
			r = r.Clone(r.Context())
			r.URL.Host = strings.TrimPrefix(b.URL, "http://")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: a.URL, HTTPClient: &http.Client{Transport: rr}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 4 {
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatalf("tools/list %d: %v", i, err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files__read", Arguments: map[string]any{"i": i}})
		if err != nil || res.IsError {
			t.Fatalf("tools/call %d: %v %v", i, err, res)
		}
	}
	audit.mu.Lock()
	for _, rec := range audit.begun {
		if rec.ConversationID == "" || rec.ConversationID != audit.begun[0].ConversationID || rec.User != "alice" {
			t.Errorf("audit record %+v: want alice's calls all in one session", rec)
		}
	}
	audit.mu.Unlock()

	id, code, body := initialize(t, a.URL, "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize on A: %d %s", code, body)
	}
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	if _, code, body := rawPost(t, t.Context(), b.URL, "alice", id, list); code != http.StatusOK || !strings.Contains(body, "files__read") {
		t.Errorf("alice's session on B: %d %s", code, body)
	}
	if _, code, _ := rawPost(t, t.Context(), b.URL, "mallory", id, list); code != http.StatusForbidden {
		t.Errorf("another caller naming alice's session on B: %d, want 403", code)
	}
	raw, _, _ := strings.Cut(id, ".")
	if _, code, _ := rawPost(t, t.Context(), b.URL, "alice", raw+".forged", list); code != http.StatusForbidden {
		t.Errorf("a forged session ID on B: %d, want 403", code)
	}
	if _, code, _ := rawPost(t, t.Context(), b.URL, "alice", raw, list); code != http.StatusNotFound {
		t.Errorf("the bare SDK ID on B: %d, want 404", code)
	}

	// A replica with another key knows nothing of it.
	other := serveHTTP(t, newServer(t, catalogue(), &mcpserve.Options{SessionKey: []byte("another key")}))
	if _, code, _ := rawPost(t, t.Context(), other.URL, "alice", id, list); code != http.StatusForbidden {
		t.Errorf("alice's session on a replica with another key: %d, want 403", code)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
