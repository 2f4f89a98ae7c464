package app

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// oauthSend makes one request and returns the status and body.
func oauthSend(t *testing.T, method, target, bearer, contentType, body string) (int, []byte) {
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
	return resp.StatusCode, b
}

// TestOAuthAcrossReplicas: a token issued by one replica works on the
// other, and a grant revoked on one is refused by the other at once (the
// token is read from PostgreSQL on every request).
func TestOAuthAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresSchema(t)
	public := func(c *config.Config) { c.Server.PublicURL = "http://localhost:8080" }
	a, aURL := serveReplica(t, dsn, public)
	_, bURL := serveReplica(t, dsn, public)
	_, key, err := a.AddUser(t.Context(), "ada", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	code, b := oauthSend(t, http.MethodPost, aURL+"/oauth/register", "", "application/json", `{"redirect_uris":["http://127.0.0.1/cb"],"client_name":"replica test"}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(b, &reg); code != 201 || err != nil {
		t.Fatalf("register: %d %s", code, b)
	}
	const verifier = "replica-verifier-0123456789-0123456789-0123456789"
	q := url.Values{
		"client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1/cb"}, "response_type": {"code"},
		"code_challenge": {oauth.S256(verifier)}, "code_challenge_method": {"S256"},
	}
	body, _ := json.Marshal(map[string]any{"query": q.Encode(), "approve": true})
	code, b = oauthSend(t, http.MethodPost, aURL+"/api/v1/oauth/consent", key, "application/json", string(body))
	var back struct{ Redirect string }
	_ = json.Unmarshal(b, &back)
	ru, err := url.Parse(back.Redirect)
	if code != 200 || err != nil || ru.Query().Get("code") == "" {
		t.Fatalf("consent: %d %s", code, b)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {ru.Query().Get("code")}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1/cb"}, "code_verifier": {verifier}}
	code, b = oauthSend(t, http.MethodPost, bURL+"/oauth/token", "", "application/x-www-form-urlencoded", form.Encode())
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &tok); code != 200 || err != nil {
		t.Fatalf("token on the other replica: %d %s", code, b)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if code, b := oauthSend(t, http.MethodPost, bURL+"/mcp", tok.AccessToken, "application/json", initialize); code != 200 {
		t.Fatalf("/mcp on replica b: %d %s", code, b)
	}
	code, b = oauthSend(t, http.MethodGet, aURL+"/api/v1/oauth/grants", key, "", "")
	var grants struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(b, &grants); code != 200 || err != nil || len(grants.Items) != 1 {
		t.Fatalf("grants on replica a: %d %s", code, b)
	}
	if code, b := oauthSend(t, http.MethodDelete, aURL+"/api/v1/oauth/grants/"+grants.Items[0].ID, key, "", ""); code != 204 {
		t.Fatalf("revoke on replica a: %d %s", code, b)
	}
	if code, _ := oauthSend(t, http.MethodPost, bURL+"/mcp", tok.AccessToken, "application/json", initialize); code != 401 {
		t.Fatalf("/mcp on replica b right after revocation on a: %d, want 401", code)
	}
}
