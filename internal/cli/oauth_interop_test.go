package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

type tsOAuthReport struct {
	AuthURL  string
	ClientID string
	Consent  struct {
		Client   struct{ Source string }
		User     struct{ Name string }
		Resource string
	}
	Tokens struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	Tools  []string
	Result struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
}

// call sends method path with bearer to base and returns status and body.
func call(t *testing.T, method, target, bearer, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTypeScriptSDKOAuth is the end-to-end test of Switchboard as an
// OAuth authorization server, with a client nobody here wrote: the MCP
// TypeScript SDK's OAuth provider against a real `serve`. Discovery from
// the 401, dynamic registration, authorization, consent as the signed-in
// user, the token, tools/list and a call audited under that user; then
// the token is refused at another resource, another user cannot revoke
// the grant, and once its user revokes it the token is refused.
func TestTypeScriptSDKOAuth(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk")
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	a, err := app.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	alice, aliceKey, err := a.AddUser(t.Context(), "alice", false, []string{"calculator", "current_time"})
	if err != nil {
		t.Fatal(err)
	}
	_, bobKey, err := a.AddUser(t.Context(), "bob", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	base := clitest.Serve(t, a)

	cmd := exec.CommandContext(t.Context(), node, "testdata/tsoauth.mjs", base+"/mcp")
	cmd.Env = append(os.Environ(), "SDK_DIR="+filepath.Join(nm, "@modelcontextprotocol/sdk"),
		"CONSENT_KEY="+aliceKey, "TS_TOOL=calculator", `TS_ARGS={"expression":"6*7"}`)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("TypeScript SDK OAuth client: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var r tsOAuthReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("client printed %q: %v", out, err)
	}
	au, _ := url.Parse(r.AuthURL)
	if !strings.HasPrefix(r.ClientID, "sbc_") || au.Path != "/oauth/authorize" || au.Query().Get("code_challenge_method") != "S256" || au.Query().Get("resource") != base+"/mcp" {
		t.Fatalf("registration/authorization: client %q, URL %s", r.ClientID, r.AuthURL)
	}
	if r.Consent.User.Name != "alice" || r.Consent.Client.Source != "registered" || r.Consent.Resource != base+"/mcp" {
		t.Errorf("consent page content %+v", r.Consent)
	}
	if !slices.Contains(r.Tools, "calculator") || slices.Contains(r.Tools, "read_file") {
		t.Errorf("tools %v: want alice's (calculator), not others", r.Tools)
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Text != "42" {
		t.Errorf("calculator result %+v", r.Result)
	}
	// The call is audited under alice.
	code, body := call(t, http.MethodGet, base+"/api/v1/audit", aliceKey, "", "")
	var audit struct{ Items []struct{ User, Tool string } }
	_ = json.Unmarshal([]byte(body), &audit)
	if code != 200 || len(audit.Items) == 0 || audit.Items[0].Tool != "calculator" || (audit.Items[0].User != "alice" && audit.Items[0].User != alice.ID) {
		t.Fatalf("audit: %d %s", code, body)
	}
	access := r.Tokens.AccessToken
	// A token for /mcp is not one for the REST API.
	if code, body := call(t, http.MethodGet, base+"/api/v1/me", access, "", ""); code != 401 {
		t.Fatalf("the /mcp token at the REST API: %d %s", code, body)
	}
	// bob cannot revoke alice's grant; alice can, and the token dies.
	code, body = call(t, http.MethodGet, base+"/api/v1/oauth/grants", aliceKey, "", "")
	var grants struct {
		Items []struct{ ID, ClientID string }
	}
	_ = json.Unmarshal([]byte(body), &grants)
	if code != 200 || len(grants.Items) != 1 || grants.Items[0].ClientID != r.ClientID {
		t.Fatalf("alice's grants: %d %s", code, body)
	}
	id := grants.Items[0].ID
	if code, _ := call(t, http.MethodDelete, base+"/api/v1/oauth/grants/"+id, bobKey, "", ""); code != 404 {
		t.Fatalf("bob revoking alice's grant: %d", code)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if code, body := call(t, http.MethodPost, base+"/mcp", access, "application/json", initialize); code != 200 {
		t.Fatalf("/mcp with the token before revocation: %d %s", code, body)
	}
	if code, _ := call(t, http.MethodDelete, base+"/api/v1/oauth/grants/"+id, aliceKey, "", ""); code != 204 {
		t.Fatalf("alice revoking her grant: %d", code)
	}
	if code, _ := call(t, http.MethodPost, base+"/mcp", access, "application/json", initialize); code != 401 {
		t.Fatalf("/mcp with a revoked grant's token: %d, want 401", code)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.Tokens.RefreshToken}, "client_id": {r.ClientID}}
	if code, body := call(t, http.MethodPost, base+"/oauth/token", "", "application/x-www-form-urlencoded", form.Encode()); code != 400 {
		t.Fatalf("refresh of a revoked grant: %d %s", code, body)
	}
}
