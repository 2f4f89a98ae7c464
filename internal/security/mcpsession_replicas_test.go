package security

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/store"
	_ "github.com/switchboard-mcp/switchboard/internal/store/postgres" // registers pgx for storetest
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// TestMCPSessionAcrossReplicas runs two Switchboard services on one
// PostgreSQL database, as behind a load balancer without sticky sessions:
// a 2025 session opened on A continues on B, calls on both land in the
// shared audit trail under the one session, and B refuses the session ID
// to another user; a 2026-07-28 client, which has no session, is served by
// either.
func TestMCPSessionAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresDatabase(t, "gateway")
	newConfig := func() *config.Config {
		dir := t.TempDir()
		cfg := config.Default()
		cfg.Data = filepath.Join(dir, "data")
		cfg.Builtin.Roots = []string{dir}
		cfg.Database.URL = dsn
		cfg.Server.MCPSessionKey = "the same long key on every replica"
		return cfg
	}
	a := startMCPService(t, newConfig(), "alice", "mallory")
	// The second replica shares the users through the database.
	b := startMCPService(t, newConfig())
	b.keys = a.keys

	// alice's client: every other request goes to B.
	var n atomic.Int32
	hostB := strings.TrimSuffix(strings.TrimPrefix(b.url, "http://"), "/mcp")
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+a.keys["alice"])
		if n.Add(1)%2 == 0 {
			r.URL.Host, r.Host = hostB, hostB
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: a.url, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 4 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if n.Load() < 5 {
		t.Fatalf("only %d requests: the client did not use both replicas", n.Load())
	}

	// The shared audit trail has the four calls, one session, both replicas.
	reader, err := app.New(newConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	st, err := reader.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.ListAudit(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]int{}
	for _, r := range recs {
		if r.User != "alice" || r.Tool != "calculator" {
			t.Errorf("unexpected audit record %+v", r)
		}
		sessions[r.ConversationID]++
	}
	if len(recs) != 4 || len(sessions) != 1 {
		t.Errorf("audit: %d records in sessions %v; want 4 in one", len(recs), sessions)
	}

	// A 2026-07-28 client has no session at all: any replica serves it.
	n.Store(0)
	c26, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: a.url, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer c26.Close()
	if v := c26.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("negotiated %s, want 2026-07-28", v)
	}
	for i := range 3 {
		res, err := c26.CallTool(t.Context(), &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1+1"}})
		if err != nil || res.IsError {
			t.Fatalf("2026 call %d: %v %+v", i, err, res)
		}
	}
	if n.Load() < 4 {
		t.Errorf("only %d requests of the 2026 client: it did not use both replicas", n.Load())
	}

	id, code, body := a.openAbandoned(t, "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize on A: %d %s", code, body)
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	if _, code, body := b.mcpPost(t, "alice", id, list); code != http.StatusOK || !strings.Contains(body, "calculator") {
		t.Errorf("alice's session on B: %d %s", code, body)
	}
	if _, code, _ := b.mcpPost(t, "mallory", id, list); code != http.StatusForbidden {
		t.Errorf("mallory naming alice's session on B: %d, want 403", code)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
