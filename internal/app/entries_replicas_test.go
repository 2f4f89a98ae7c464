package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// bearerRT adds an API key to each request.
type bearerRT string

func (k bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(k))
	return http.DefaultTransport.RoundTrip(r)
}

// send sends body (JSON) to url with key and returns the status and body.
func send(t *testing.T, method, url, key string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRuntimeServerAcrossReplicas: an admin adds a stdio MCP server through
// the API of replica A; an MCP client of replica B lists its tools soon
// after; a non-admin is refused; the audit trail names the admin and
// holds no secret; the secret is nowhere in what the API or the store
// shows; a name the file has is refused.
func TestRuntimeServerAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresSchema(t)
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	setup := func(c *config.Config) {
		c.SecretKey = config.Secret(key)
		c.MCPServers = map[string]config.MCPServer{"filed": {Command: "/bin/true", Disabled: true, Timeout: time.Minute}}
	}
	a, aURL := serveReplica(t, dsn, setup)
	b, bURL := serveReplica(t, dsn, setup)
	for _, r := range []*App{a, b} { // as `serve` starts them
		if err := r.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	_, root, err := a.AddUser(t.Context(), "root", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, bob, err := a.AddUser(t.Context(), "bob", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "replica-b", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: bURL + "/mcp", HTTPClient: &http.Client{Transport: bearerRT(bob)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	hasAdded := func() bool {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("listing tools on B: %v", err)
		}
		for _, tl := range res.Tools {
			if strings.HasPrefix(tl.Name, "added__") {
				return true
			}
		}
		return false
	}
	if hasAdded() {
		t.Fatal("the server's tools are listed before it was added")
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const secret = "s3cret-token-value-1234"
	entry := map[string]any{
		"command": exe,
		"args":    []string{"-test.run=^$"},
		"env": map[string]string{
			mcptest.EnvMode: string(mcptest.ModeNormal), mcptest.EnvEvents: filepath.Join(t.TempDir(), "events"), mcptest.EnvID: "added",
			"API_TOKEN": secret,
		},
	}
	add := map[string]any{"name": "added", "entry": entry}
	if code, body := send(t, http.MethodPost, aURL+"/api/v1/config/server", bob, add); code != http.StatusForbidden {
		t.Fatalf("a non-admin's add: %d %s, want 403", code, body)
	}
	if code, body := send(t, http.MethodPost, aURL+"/api/v1/config/server", root, map[string]any{"name": "filed", "entry": entry}); code != http.StatusConflict || !strings.Contains(body, "change it there") {
		t.Errorf("adding a name the file has: %d %s, want 409 saying it is the file's", code, body)
	}
	if code, body := send(t, http.MethodPost, aURL+"/api/v1/config/server", root, map[string]any{"name": "bad", "entry": map[string]any{"url": "ftp://x", "command": "y", "pinning": "never"}}); code != http.StatusBadRequest ||
		!strings.Contains(body, "pinning") || !strings.Contains(body, "not both") {
		t.Errorf("an invalid entry: %d %s, want 400 listing every problem", code, body)
	}

	start := time.Now()
	code, body := send(t, http.MethodPost, aURL+"/api/v1/config/server", root, add)
	if code != http.StatusCreated {
		t.Fatalf("the admin's add: %d %s", code, body)
	}
	took, ok := within(time.Second, hasAdded)
	if !ok {
		t.Fatalf("replica B's client does not list the added server's tools after %s (on A: %v; A's servers %+v)", took, hasTool(a, "added__"), a.pool.Status())
	}
	t.Logf("added on A -> listed by a client of B in %s (from the POST)", time.Since(start))

	// The secret is never shown: not by list or get on either replica,
	// not in the stored body, not in the audit.
	for _, u := range []string{aURL + "/api/v1/config/entries", bURL + "/api/v1/config/entries", bURL + "/api/v1/config/server/added"} {
		code, body := send(t, http.MethodGet, u, root, nil)
		if code != http.StatusOK || strings.Contains(body, secret) || !strings.Contains(body, `"API_TOKEN":"(set)"`) {
			t.Errorf("GET %s: %d %s; want 200 with API_TOKEN shown as (set)", u, code, body)
		}
	}
	// A non-admin is refused on every route, on either replica.
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/config/entries"},
		{http.MethodGet, "/api/v1/config/server/added"},
		{http.MethodPost, "/api/v1/config/server"},
		{http.MethodPut, "/api/v1/config/server/added"},
		{http.MethodDelete, "/api/v1/config/server/added"},
		{http.MethodPost, "/api/v1/config/server/added/enable"},
		{http.MethodPost, "/api/v1/config/server/added/disable"},
		{http.MethodPost, "/api/v1/config/server/added/test"},
		{http.MethodPost, "/api/v1/config/model"},
	} {
		for _, base := range []string{aURL, bURL} {
			if code, body := send(t, r.method, base+r.path, bob, entry); code != http.StatusForbidden {
				t.Errorf("a non-admin's %s %s: %d %s, want 403", r.method, r.path, code, body)
			}
		}
	}
	st, err := a.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	en, err := st.GetConfigEntry(t.Context(), store.EntryServer, "added")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(en.Body, []byte(secret)) || bytes.Contains(en.Sealed, []byte(secret)) {
		t.Error("the secret is stored in the clear")
	}
	recs, err := st.ListAudit(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var audited bool
	for _, r := range recs {
		if strings.Contains(string(r.Arguments), secret) {
			t.Errorf("audit record %s holds the secret: %s", r.Tool, r.Arguments)
		}
		if r.Tool == "config.server.add" && r.User == "root" && r.Server == "added" {
			audited = true
		}
	}
	if !audited {
		t.Errorf("no audit record of root adding the server among %d", len(recs))
	}

	// The doctor's steps, run from B's API on the added server.
	if code, body := send(t, http.MethodPost, bURL+"/api/v1/config/server/added/test", root, nil); code != http.StatusOK ||
		!strings.Contains(body, `"OK":true`) || strings.Contains(body, secret) {
		t.Errorf("test: %d %s; want 200 with OK true and no secret", code, body)
	}
	if code, _ := send(t, http.MethodPost, bURL+"/api/v1/config/server/added/test", bob, nil); code != http.StatusForbidden {
		t.Errorf("a non-admin's test: %d, want 403", code)
	}

	// Disabled on B: its tools leave A's catalogue; removed: gone.
	if code, body := send(t, http.MethodPost, bURL+"/api/v1/config/server/added/disable", root, nil); code != http.StatusOK {
		t.Fatalf("disable: %d %s", code, body)
	}
	if took, ok := within(5*time.Second, func() bool { return !hasTool(a, "added__") }); !ok {
		t.Errorf("the disabled server's tools are still on A after %s", took)
	}
	if code, body := send(t, http.MethodDelete, aURL+"/api/v1/config/server/added", root, nil); code != http.StatusNoContent {
		t.Errorf("remove: %d %s", code, body)
	}
	if code, _ := send(t, http.MethodDelete, aURL+"/api/v1/config/server/filed", root, nil); code != http.StatusConflict {
		t.Errorf("removing the file's server: %d, want 409", code)
	}
}

// hasTool reports whether a's catalogue has a tool whose name starts with
// prefix.
func hasTool(a *App, prefix string) bool {
	for _, e := range a.registry.List() {
		if strings.HasPrefix(e.Name, prefix) {
			return true
		}
	}
	return false
}
