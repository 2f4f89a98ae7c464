package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

const (
	testRedirect = "http://localhost/cb"
	testVerifier = "verifier-0123456789-0123456789-0123456789-abcdef"
)

// authzQuery is a valid authorization request of client-1 for /mcp,
// with edit applied.
func authzQuery(edit func(url.Values)) url.Values {
	q := url.Values{
		"client_id": {"client-1"}, "redirect_uri": {testRedirect}, "response_type": {"code"},
		"code_challenge": {oauth.S256(testVerifier)}, "code_challenge_method": {"S256"},
		"state": {"st-1"}, "resource": {testPublicURL + "/mcp"},
	}
	if edit != nil {
		edit(q)
	}
	return q
}

// newFlowEnv is newOAuthEnv with a web UI that names the page it serves.
func newFlowEnv(t *testing.T) *env {
	t.Helper()
	e := newOAuthEnv(t)
	e.srv.opts.Web = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("consent page for " + r.URL.Path))
	})
	return e
}

// noRedirect sends req without following redirects.
func (e *env) noRedirect(t *testing.T, method, path string, body io.Reader, hdr http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	c := *e.ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// approve consents to q as the user with key and returns the redirect.
func (e *env) approve(t *testing.T, key string, q url.Values, approve bool) *url.URL {
	t.Helper()
	code, b := e.consentPost(t, key, q, approve)
	if code != 200 {
		t.Fatalf("consent: %d %s", code, b)
	}
	u, err := url.Parse(decode[consentRedirect](t, b).Redirect)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// consentPost sends the consent decision as the consent page does.
func (e *env) consentPost(t *testing.T, key string, q url.Values, approve bool) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q.Encode(), "approve": approve})
	resp := e.send(t, http.MethodPost, "/api/v1/oauth/consent", key, string(body), http.Header{"Content-Type": {"application/json"}})
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// tokenCall posts a token request and returns the status and the decoded
// body (a token response or an OAuth error).
func (e *env) tokenCall(t *testing.T, form url.Values) (int, map[string]any) {
	t.Helper()
	resp := e.send(t, http.MethodPost, "/oauth/token", "", form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, decode[map[string]any](t, b)
}

// codeFor runs authorize and consent as alice and returns the code.
func (e *env) codeFor(t *testing.T, q url.Values) string {
	t.Helper()
	u := e.approve(t, e.key, q, true)
	if u.Query().Get("state") != q.Get("state") || u.Query().Get("iss") != testPublicURL {
		t.Fatalf("redirect %s lacks state or iss", u)
	}
	return u.Query().Get("code")
}

func exchange(code string, edit func(url.Values)) url.Values {
	f := url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "client_id": {"client-1"},
		"redirect_uri": {testRedirect}, "code_verifier": {testVerifier}, "resource": {testPublicURL + "/mcp"},
	}
	if edit != nil {
		edit(f)
	}
	return f
}

func TestOAuthFlow(t *testing.T) {
	e := newFlowEnv(t)
	q := authzQuery(nil)
	resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "consent page for /oauth/authorize" {
		t.Fatalf("authorize: %d %s", resp.StatusCode, b)
	}
	code, info := e.do(t, http.MethodGet, "/api/v1/oauth/consent?"+q.Encode(), e.key, nil)
	c := decode[consentJSON](t, info)
	if code != 200 || c.Client.Name != "Test client" || c.Client.RedirectHost != "localhost" || c.Resource != testPublicURL+"/mcp" || c.User.Name != "alice" {
		t.Fatalf("consent info: %d %s", code, info)
	}
	st, tok := e.tokenCall(t, exchange(e.codeFor(t, q), nil))
	if st != 200 || tok["token_type"] != "Bearer" || tok["expires_in"].(float64) != accessTTL.Seconds() {
		t.Fatalf("token: %d %v", st, tok)
	}
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	if code, b := e.do(t, http.MethodPost, "/mcp", access, map[string]any{}); code != 200 || string(b) != "mcp as alice via client-1" {
		t.Fatalf("/mcp with the token: %d %s", code, b)
	}
	// Refresh rotates: a new pair, and the new access token works.
	st, tok2 := e.tokenCall(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"client-1"}})
	if st != 200 || tok2["refresh_token"] == refresh {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	if code, b := e.do(t, http.MethodPost, "/mcp", tok2["access_token"].(string), map[string]any{}); code != 200 {
		t.Fatalf("/mcp with the refreshed token: %d %s", code, b)
	}
	// Deny sends access_denied back, with the state.
	u := e.approve(t, e.key, q, false)
	if u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "st-1" || u.Query().Get("code") != "" {
		t.Fatalf("deny redirect %s", u)
	}
}

// TestOAuthAttackAudience: a token issued for /mcp is refused by the REST
// API, and no token is issued for another server's resource.
func TestOAuthAttackAudience(t *testing.T) {
	e := newFlowEnv(t)
	_, tok := e.tokenCall(t, exchange(e.codeFor(t, authzQuery(nil)), nil))
	if code, b := e.do(t, http.MethodGet, "/api/v1/me", tok["access_token"].(string), nil); code != 401 {
		t.Fatalf("a /mcp token at the REST API: %d %s", code, b)
	}
	q := authzQuery(func(q url.Values) { q.Set("resource", "https://other.example.com/mcp") })
	resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Query().Get("error") != "invalid_target" {
		t.Fatalf("authorize for another resource: %d %s", resp.StatusCode, loc)
	}
	if code, b := e.consentPost(t, e.key, q, true); code != 400 {
		t.Fatalf("consent for another resource: %d %s", code, b)
	}
}

// TestOAuthAttackCodeReplay: a code redeemed twice revokes its grant, so
// the tokens of the first redemption die too.
func TestOAuthAttackCodeReplay(t *testing.T) {
	e := newFlowEnv(t)
	code := e.codeFor(t, authzQuery(nil))
	st, tok := e.tokenCall(t, exchange(code, nil))
	if st != 200 {
		t.Fatalf("first redemption: %d %v", st, tok)
	}
	if st, body := e.tokenCall(t, exchange(code, nil)); st != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("replay: %d %v", st, body)
	}
	if c, b := e.do(t, http.MethodPost, "/mcp", tok["access_token"].(string), map[string]any{}); c != 401 {
		t.Fatalf("token of a replayed code still works: %d %s", c, b)
	}
}

// TestOAuthAttackRedirectMismatch: an unregistered redirect URI is never
// redirected to, at authorize or consent; a different one at the token
// endpoint burns the code.
func TestOAuthAttackRedirectMismatch(t *testing.T) {
	e := newFlowEnv(t)
	for _, bad := range []string{"https://evil.example.com/cb", "http://localhost/cb/../evil", "http://localhost.evil.example/cb", "http://localhost/cb?x=1", "//evil.example.com/cb"} {
		q := authzQuery(func(q url.Values) { q.Set("redirect_uri", bad) })
		resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("authorize with redirect %q: %d Location %q, want 400 and no redirect", bad, resp.StatusCode, resp.Header.Get("Location"))
		}
		if code, b := e.consentPost(t, e.key, q, true); code != 400 {
			t.Errorf("consent with redirect %q: %d %s", bad, code, b)
		}
	}
	code := e.codeFor(t, authzQuery(nil))
	if st, body := e.tokenCall(t, exchange(code, func(f url.Values) { f.Set("redirect_uri", "http://localhost:9/cb") })); st != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("token with another redirect_uri: %d %v", st, body)
	}
	if st, _ := e.tokenCall(t, exchange(code, nil)); st != 400 {
		t.Fatal("a code survived a mismatched redemption")
	}
}

// TestOAuthAttackOpenRedirect: a request whose client is unknown or
// whose redirect is not the client's gets an error page, never a
// redirect; a client_id URL naming an internal address is not fetched.
func TestOAuthAttackOpenRedirect(t *testing.T) {
	e := newFlowEnv(t)
	for name, q := range map[string]url.Values{
		"unknown client":           authzQuery(func(q url.Values) { q.Set("client_id", "nobody"); q.Set("redirect_uri", "https://evil.example.com/") }),
		"no redirect_uri":          authzQuery(func(q url.Values) { q.Del("redirect_uri") }),
		"two redirect_uris":        authzQuery(func(q url.Values) { q.Add("redirect_uri", "https://evil.example.com/") }),
		"metadata URL on loopback": authzQuery(func(q url.Values) { q.Set("client_id", e.ts.URL+"/client.json") }),
		"metadata URL internal":    authzQuery(func(q url.Values) { q.Set("client_id", "https://169.254.169.254/latest/meta-data") }),
	} {
		resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || strings.Contains(string(b), "<script") {
			t.Errorf("%s: %d Location %q", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// TestOAuthAttackPKCE: plain and missing challenges are refused at
// authorize; a wrong verifier burns the code.
func TestOAuthAttackPKCE(t *testing.T) {
	e := newFlowEnv(t)
	for name, q := range map[string]url.Values{
		"plain":   authzQuery(func(q url.Values) { q.Set("code_challenge_method", "plain"); q.Set("code_challenge", testVerifier) }),
		"missing": authzQuery(func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }),
	} {
		resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("state") != "st-1" {
			t.Errorf("%s challenge: %d %s", name, resp.StatusCode, loc)
		}
	}
	code := e.codeFor(t, authzQuery(nil))
	wrong := strings.Repeat("w", 43)
	if st, body := e.tokenCall(t, exchange(code, func(f url.Values) { f.Set("code_verifier", wrong) })); st != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("wrong verifier: %d %v", st, body)
	}
	if st, _ := e.tokenCall(t, exchange(code, nil)); st != 400 {
		t.Fatal("the right verifier redeemed a code burnt by a wrong one")
	}
}

// TestOAuthAttackConsentCSRF: the consent decision cannot be made by
// another site: a cross-site POST, a foreign Origin and a form post are
// refused, and an OAuth token cannot consent in its user's name.
func TestOAuthAttackConsentCSRF(t *testing.T) {
	e := newFlowEnv(t)
	body := `{"query":"` + authzQuery(nil).Encode() + `","approve":true}`
	for name, hdr := range map[string]http.Header{
		"cross-site fetch": {"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}},
		"foreign origin":   {"Origin": {"https://evil.example.com"}, "Content-Type": {"application/json"}},
		"form post":        {"Content-Type": {"application/x-www-form-urlencoded"}},
		"text/plain post":  {"Content-Type": {"text/plain"}},
	} {
		resp := e.send(t, http.MethodPost, "/api/v1/oauth/consent", e.key, body, hdr)
		resp.Body.Close()
		if resp.StatusCode != 403 && resp.StatusCode != 415 {
			t.Errorf("%s: %d, want 403 or 415", name, resp.StatusCode)
		}
	}
	restTok, _ := e.issue(t, e.userID, testPublicURL, oauth.KindAccess, e.srv.opts.Now().Add(accessTTL))
	if code, b := e.consentPost(t, restTok, authzQuery(nil), true); code != 403 {
		t.Fatalf("consent with an OAuth token: %d %s", code, b)
	}
	grants, _ := e.db.ListOAuthGrants(t.Context(), e.userID)
	if len(grants) != 1 { // restTok's own
		t.Fatalf("grants after forged consents: %+v", grants)
	}
}

// TestOAuthAttackRefreshReuse: a refresh token used twice revokes the
// grant; the tokens of the rotation die with it.
func TestOAuthAttackRefreshReuse(t *testing.T) {
	e := newFlowEnv(t)
	_, tok := e.tokenCall(t, exchange(e.codeFor(t, authzQuery(nil)), nil))
	rt := tok["refresh_token"].(string)
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"client-1"}}
	st, tok2 := e.tokenCall(t, refresh)
	if st != 200 {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	if st, body := e.tokenCall(t, refresh); st != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("reuse: %d %v", st, body)
	}
	if c, _ := e.do(t, http.MethodPost, "/mcp", tok2["access_token"].(string), map[string]any{}); c != 401 {
		t.Fatalf("rotated access token survived reuse: %d", c)
	}
	if st, _ := e.tokenCall(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2["refresh_token"].(string)}, "client_id": {"client-1"}}); st != 400 {
		t.Fatal("rotated refresh token survived reuse")
	}
}

// TestOAuthAttackOtherUsersGrant: bob can neither list nor revoke
// alice's grant; an admin can list another user's.
func TestOAuthAttackOtherUsersGrant(t *testing.T) {
	e := newFlowEnv(t)
	_, tok := e.tokenCall(t, exchange(e.codeFor(t, authzQuery(nil)), nil))
	grants, _ := e.db.ListOAuthGrants(t.Context(), e.userID)
	if len(grants) != 1 {
		t.Fatalf("grants %+v", grants)
	}
	id := grants[0].ID
	bob := e.addUser(t, "bob", store.RoleUser, "files__echo")
	if code, b := e.do(t, http.MethodDelete, "/api/v1/oauth/grants/"+id, bob, nil); code != 404 {
		t.Fatalf("bob revoking alice's grant: %d %s", code, b)
	}
	if code, b := e.do(t, http.MethodGet, "/api/v1/oauth/grants?user="+e.userID, bob, nil); code != 403 {
		t.Fatalf("bob listing alice's grants: %d %s", code, b)
	}
	if code, b := e.do(t, http.MethodGet, "/api/v1/oauth/grants", bob, nil); code != 200 || strings.Contains(string(b), id) {
		t.Fatalf("bob's own grants: %d %s", code, b)
	}
	if c, _ := e.do(t, http.MethodPost, "/mcp", tok["access_token"].(string), map[string]any{}); c != 200 {
		t.Fatal("alice's token died of bob's attempt")
	}
	code, b := e.do(t, http.MethodGet, "/api/v1/oauth/grants", e.key, nil)
	if code != 200 || !strings.Contains(string(b), id) || !strings.Contains(string(b), "Test client") {
		t.Fatalf("alice's grants: %d %s", code, b)
	}
	if code, b := e.do(t, http.MethodDelete, "/api/v1/oauth/grants/"+id, e.key, nil); code != 204 {
		t.Fatalf("alice revoking: %d %s", code, b)
	}
	if c, _ := e.do(t, http.MethodPost, "/mcp", tok["access_token"].(string), map[string]any{}); c != 401 {
		t.Fatal("a revoked grant's token still works")
	}
}

// TestOAuthCORS: browser clients of another origin may discover, register
// and redeem; the consent API is not opened to them.
func TestOAuthCORS(t *testing.T) {
	e := newFlowEnv(t)
	origin := http.Header{"Origin": {"http://localhost:6274"}}
	resp := e.send(t, http.MethodOptions, "/oauth/token", "", nil, http.Header{"Origin": {"http://localhost:6274"}, "Access-Control-Request-Method": {"POST"}})
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = e.send(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil, origin)
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("metadata without CORS: %v", resp.Header)
	}
	hdr := http.Header{"Origin": {"http://localhost:6274"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	resp = e.send(t, http.MethodPost, "/oauth/token", "", exchange(e.codeFor(t, authzQuery(nil)), nil).Encode(), hdr)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("cross-origin token request: %d %v", resp.StatusCode, resp.Header)
	}
	resp = e.send(t, http.MethodGet, "/api/v1/oauth/consent", e.key, nil, origin)
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("the consent API answers CORS")
	}
}

// TestOAuthRegisterRateLimited: registrations are bounded per address.
func TestOAuthRegisterRateLimited(t *testing.T) {
	e := newFlowEnv(t)
	body := map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}}
	var last int
	for range 12 {
		last, _ = e.do(t, http.MethodPost, "/oauth/register", "", body)
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("12th registration from one address: %d, want 429", last)
	}
}

// TestOAuthClientMetadataDocument: a client whose client_id is the URL of
// its metadata document goes through the flow without registering.
func TestOAuthClientMetadataDocument(t *testing.T) {
	e := newFlowEnv(t)
	mux := http.NewServeMux()
	doc := httptest.NewServer(mux)
	t.Cleanup(doc.Close)
	id := doc.URL + "/client.json"
	var fetches atomic.Int32
	mux.HandleFunc("/client.json", func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_, _ = w.Write([]byte(`{"client_id":"` + id + `","client_name":"Doc client","redirect_uris":["` + testRedirect + `"],"token_endpoint_auth_method":"none"}`))
	})
	e.srv.cimd = newCIMDCache(oauth.NewFetcher(&oauth.FetcherOptions{AllowLoopback: true}), time.Now)
	q := authzQuery(func(q url.Values) { q.Set("client_id", id) })
	resp := e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+q.Encode(), nil, nil)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	code, b := e.do(t, http.MethodGet, "/api/v1/oauth/consent?"+q.Encode(), e.key, nil)
	if c := decode[consentJSON](t, b); code != 200 || c.Client.Source != "metadata" || c.Client.Name != "Doc client" {
		t.Fatalf("consent info: %d %s", code, b)
	}
	st, tok := e.tokenCall(t, exchange(e.codeFor(t, q), func(f url.Values) { f.Set("client_id", id) }))
	if st != 200 {
		t.Fatalf("token: %d %v", st, tok)
	}
	if c, b := e.do(t, http.MethodPost, "/mcp", tok["access_token"].(string), map[string]any{}); c != 200 || string(b) != "mcp as alice via "+id {
		t.Fatalf("/mcp: %d %s", c, b)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("document fetched %d times, want once (cached)", n)
	}
	// Another redirect than the document's is refused without redirecting.
	bad := authzQuery(func(q url.Values) { q.Set("client_id", id); q.Set("redirect_uri", "https://evil.example.com/cb") })
	resp = e.noRedirect(t, http.MethodGet, "/oauth/authorize?"+bad.Encode(), nil, nil)
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Fatalf("metadata client, foreign redirect: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
