package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testConsent drives the real consent page: an MCP client's authorization
// request opens it, the page names the client, where it sends the person
// back, the resource and the signed-in user; Approve returns the browser
// to the client's redirect URI with a code, which the token endpoint
// exchanges for a token that works at /mcp's resource only. The Apps page
// then lists the grant and revokes it.
func testConsent(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{keys: true, plainUser: true})
	redirect := s.url + "/client-callback"
	if err := s.db.PutOAuthClient(t.Context(), store.OAuthClient{ID: "client-web", Name: "Browser test client", RedirectURIs: []string{redirect}, Source: store.OAuthClientRegistered}); err != nil {
		t.Fatal(err)
	}
	const verifier = "browser-verifier-0123456789-0123456789-0123456789"
	q := url.Values{
		"client_id": {"client-web"}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {oauth.S256(verifier)}, "code_challenge_method": {"S256"}, "state": {"xyz"}, "resource": {s.url + "/mcp"},
	}
	ctx := tab(t, b)
	step(t, ctx, "opening the UI", chromedp.Navigate(s.url+"/grants"), chromedp.WaitReady(chromedp.ID("main")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.key)+`), true`)
	step(t, ctx, "opening the authorization URL", chromedp.Navigate(s.url+"/oauth/authorize?"+q.Encode()), chromedp.WaitVisible(chromedp.ID("consent")))
	for id, want := range map[string]string{"consent-client": "Browser test client", "consent-redirect": redirect, "consent-resource": s.url + "/mcp", "consent-user": "alice"} {
		if got := eval[string](t, ctx, `document.getElementById(`+jsString(id)+`).textContent`); !strings.Contains(got, want) {
			t.Errorf("%s shows %q, want %q in it", id, got, want)
		}
	}
	eval[bool](t, ctx, `document.getElementById('consent-approve').click(), true`)
	back, err := url.Parse(landing(t, ctx, "/client-callback"))
	if err != nil || back.Query().Get("state") != "xyz" || back.Query().Get("code") == "" {
		t.Fatalf("redirect %s", back)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "client_id": {"client-web"}, "redirect_uri": {redirect}, "code_verifier": {verifier}}
	resp, err := http.PostForm(s.url+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	if code := mcpStatus(t, s.url, tok.AccessToken); code == http.StatusUnauthorized {
		t.Fatal("/mcp refused the new token")
	}
	// The Apps page lists the grant; Revoke ends it.
	step(t, ctx, "opening the apps page", chromedp.Navigate(s.url+"/grants"), chromedp.WaitVisible(chromedp.CSS(`[data-grant] button.danger`)))
	eval[bool](t, ctx, `document.querySelector('[data-grant] button.danger').click(), true`)
	waitFor(t, ctx, "grant revoked", `document.getElementById('grant-rows').children.length === 0`)
	if code := mcpStatus(t, s.url, tok.AccessToken); code != http.StatusUnauthorized {
		t.Errorf("/mcp with the revoked grant's token: %d, want 401", code)
	}
}

// landing waits until the tab has navigated to path (the page navigates
// away after an API call, so evaluating meanwhile may fail: retried) and
// returns the whole URL.
func landing(t *testing.T, ctx context.Context, path string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		href, err := chromedp.Run(pctx, chromedp.Evaluate[string](`location.href`))
		cancel()
		if u, perr := url.Parse(href); err == nil && perr == nil && u.Path == path {
			return href
		}
		time.Sleep(100 * time.Millisecond) // polling a browser, not our own clock
	}
	t.Fatalf("the browser did not arrive at %s", path)
	return ""
}

// mcpStatus is the status of a GET /mcp with bearer.
func mcpStatus(t *testing.T, base, bearer string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
