package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestOAuthRegister(t *testing.T) {
	e := newOAuthEnv(t)
	code, b := e.do(t, http.MethodPost, "/oauth/register", "", map[string]any{
		"redirect_uris": []string{"http://localhost:3000/callback"}, "client_name": "SDK client",
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
		"scope": "ignored", "software_id": "ignored",
	})
	if code != http.StatusCreated {
		t.Fatalf("register: %d %s", code, b)
	}
	got := decode[registered](t, b)
	if !strings.HasPrefix(got.ClientID, "sbc_") || got.TokenEndpointAuthMethod != "none" || got.ClientIDIssuedAt == 0 {
		t.Fatalf("registered %+v", got)
	}
	c, err := e.db.GetOAuthClient(t.Context(), got.ClientID)
	if err != nil || c.Name != "SDK client" || c.Source != store.OAuthClientRegistered || len(c.RedirectURIs) != 1 {
		t.Fatalf("stored client %+v, %v", c, err)
	}
	_, b = e.do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}})
	if again := decode[registered](t, b); again.ClientID == got.ClientID {
		t.Fatal("two registrations got one client_id")
	}
}

func TestOAuthRegisterRefused(t *testing.T) {
	e := newOAuthEnv(t)
	tests := []struct {
		name     string
		body     any
		wantCode string
	}{
		{"no redirect", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"http off loopback", map[string]any{"redirect_uris": []string{"http://evil.example/cb"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://a.example/cb#x"}}, "invalid_redirect_uri"},
		{"confidential client", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"token response", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"not JSON", "redirect_uris=https://a.example/cb", "invalid_client_metadata"},
		{"too large", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_name": strings.Repeat("x", 20<<10)}, "invalid_client_metadata"},
	}
	for _, tc := range tests {
		code, b := e.do(t, http.MethodPost, "/oauth/register", "", tc.body)
		if got := decode[oauthError](t, b); code != 400 || got.Error != tc.wantCode || got.Description == "" {
			t.Errorf("%s: %d %s, want 400 %s", tc.name, code, b, tc.wantCode)
		}
	}
}
