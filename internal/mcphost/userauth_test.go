package mcphost_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestUserAuthorizationRefresh: a user's authorization through a real
// authorization server (registration, PKCE S256, resource), its token
// refreshed (the new refresh token kept), and an unknown refresh token
// refused with the server's error.
func TestUserAuthorizationRefresh(t *testing.T) {
	sc, as := mcptest.OAuthServer(t, "remote", time.Minute)
	hc := loopbackClient()
	authURL, ua, err := mcphost.BeginUserAuthorization(t.Context(), sc.URL, nil, "http://127.0.0.1:1/cb", "st-1", hc)
	if err != nil {
		t.Fatal(err)
	}
	q := mustQuery(t, authURL)
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != sc.URL || q.Get("state") != "st-1" || q.Get("code_challenge") == "" {
		t.Errorf("authorization request %s lacks PKCE S256, the resource or the state", authURL)
	}
	back, err := as.Redirect(t.Context(), authURL)
	if err != nil {
		t.Fatal(err)
	}
	bq := mustQuery(t, back)
	tok, err := ua.Exchange(t.Context(), bq.Get("code"), bq.Get("iss"), hc)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || tok.Resource != sc.URL || tok.Issuer != as.URL {
		t.Fatalf("token %+v: want access and refresh tokens for %s from %s", tok, sc.URL, as.URL)
	}
	if _, err := ua.Exchange(t.Context(), bq.Get("code"), bq.Get("iss"), hc); err == nil {
		t.Error("the same code exchanged twice")
	}
	fresh, err := tok.Refresh(t.Context(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken || as.Refreshes.Load() != 1 {
		t.Errorf("refresh gave %q/%q after %q/%q (%d refreshes), want new tokens", fresh.AccessToken, fresh.RefreshToken, tok.AccessToken, tok.RefreshToken, as.Refreshes.Load())
	}
	bogus := tok
	bogus.RefreshToken = "not-a-refresh-token"
	if _, err := bogus.Refresh(t.Context(), hc); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("refreshing with an unknown refresh token: %v, want the server's invalid_grant", err)
	}
}

// TestUserAuthorizationMixUp: an authorization server whose metadata names
// another issuer is refused before any redirect (RFC 8414 section 3.3),
// and an authorization response from another issuer, or without the iss
// the server promised (RFC 9207), is refused before the code is sent.
func TestUserAuthorizationMixUp(t *testing.T) {
	hc := loopbackClient()
	var asURL string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"issuer":"https://honest.example","authorization_endpoint":"` + asURL + `/authorize","token_endpoint":"` + asURL + `/token","code_challenge_methods_supported":["S256"],"registration_endpoint":"` + asURL + `/register"}`))
	}))
	t.Cleanup(evil.Close)
	asURL = evil.URL
	var resURL string
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"resource":"` + resURL + `","authorization_servers":["` + asURL + `"]}`))
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(rs.Close)
	resURL = rs.URL + "/mcp"
	if _, _, err := mcphost.BeginUserAuthorization(t.Context(), resURL, nil, "http://127.0.0.1:1/cb", "s", hc); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Errorf("an authorization server naming another issuer: %v, want refused for its issuer", err)
	}

	sc, as := mcptest.OAuthServer(t, "remote", time.Minute)
	authURL, ua, err := mcphost.BeginUserAuthorization(t.Context(), sc.URL, nil, "http://127.0.0.1:1/cb", "s", hc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := as.Redirect(t.Context(), authURL)
	if err != nil {
		t.Fatal(err)
	}
	code := mustQuery(t, back).Get("code")
	for _, iss := range []string{"https://attacker.example", ""} {
		if _, err := ua.Exchange(t.Context(), code, iss, hc); err == nil {
			t.Errorf("an authorization response with iss %q was exchanged", iss)
		}
	}
	if n := as.Exchanges.Load(); n != 0 {
		t.Errorf("the code reached the token endpoint %d times, want none", n)
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}
