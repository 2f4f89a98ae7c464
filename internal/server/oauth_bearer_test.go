package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

const testPublicURL = "https://sb.example.com"

// newOAuthEnv is a server accepting OAuth tokens from its store, whose
// /mcp answers with the name of the request's user.
func newOAuthEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, func(o *Options) {
		o.PublicURL = testPublicURL
		o.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := UserFrom(r.Context())
			_, _ = w.Write([]byte("mcp as " + u.Name + " via " + u.OAuthClient))
		})
	})
	e.srv.opts.OAuth, e.srv.opts.OAuthIssuer = e.db, e.db
	if err := e.db.PutOAuthClient(t.Context(), store.OAuthClient{ID: "client-1", Name: "Test client", RedirectURIs: []string{"http://localhost/cb"}, Source: store.OAuthClientRegistered}); err != nil {
		t.Fatal(err)
	}
	return e
}

// issue stores a grant of userID for resource and a token of kind from
// it, expiring at exp, and returns the secret and the grant.
func (e *env) issue(t *testing.T, userID, resource string, kind oauth.Kind, exp time.Time) (string, store.OAuthGrant) {
	t.Helper()
	g, err := e.db.CreateOAuthGrant(t.Context(), store.OAuthGrant{UserID: userID, ClientID: "client-1", Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	secret, hash := oauth.NewSecret(kind)
	k := map[oauth.Kind]store.OAuthTokenKind{oauth.KindAccess: store.OAuthAccess, oauth.KindRefresh: store.OAuthRefresh, oauth.KindCode: store.OAuthCode}[kind]
	if err := e.db.PutOAuthToken(t.Context(), store.OAuthToken{Hash: hash, GrantID: g.ID, Kind: k, ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	return secret, g
}

func TestOAuthBearerAudience(t *testing.T) {
	e := newOAuthEnv(t)
	hour := time.Now().Add(time.Hour)
	mcpTok, _ := e.issue(t, e.userID, testPublicURL+"/mcp", oauth.KindAccess, hour)
	restTok, _ := e.issue(t, e.userID, testPublicURL, oauth.KindAccess, hour)
	otherTok, _ := e.issue(t, e.userID, "https://other.example.com/mcp", oauth.KindAccess, hour)

	// Each token works at its own resource and only there.
	code, b := e.do(t, http.MethodPost, "/mcp", mcpTok, map[string]any{})
	if code != 200 || string(b) != "mcp as alice via client-1" {
		t.Fatalf("/mcp with its token: %d %s", code, b)
	}
	if code, b := e.do(t, http.MethodGet, "/api/v1/me", restTok, nil); code != 200 || !strings.Contains(string(b), `"alice"`) {
		t.Fatalf("REST with its token: %d %s", code, b)
	}
	for _, tc := range []struct{ path, tok, why string }{
		{"/api/v1/me", mcpTok, "a /mcp token at the REST API"},
		{"/mcp", restTok, "a REST token at /mcp"},
		{"/mcp", otherTok, "another server's token"},
		{"/api/v1/me", otherTok, "another server's token"},
	} {
		resp := e.send(t, http.MethodGet, tc.path, tc.tok, nil, nil)
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s: status %d, WWW-Authenticate %q: want 401 invalid_token", tc.why, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestOAuthBearerRefused(t *testing.T) {
	e := newOAuthEnv(t)
	hour := time.Now().Add(time.Hour)
	rest := testPublicURL
	revoked, g := e.issue(t, e.userID, rest, oauth.KindAccess, hour)
	if err := e.db.RevokeOAuthGrant(t.Context(), e.userID, g.ID); err != nil {
		t.Fatal(err)
	}
	expired, _ := e.issue(t, e.userID, rest, oauth.KindAccess, time.Now().Add(-time.Minute))
	refresh, _ := e.issue(t, e.userID, rest, oauth.KindRefresh, hour)
	codeTok, _ := e.issue(t, e.userID, rest, oauth.KindCode, hour)
	forged, _ := oauth.NewSecret(oauth.KindAccess)
	for name, tok := range map[string]string{"revoked grant": revoked, "expired": expired, "refresh token as bearer": refresh, "code as bearer": codeTok, "never issued": forged} {
		if code, b := e.do(t, http.MethodGet, "/api/v1/me", tok, nil); code != 401 {
			t.Errorf("%s: %d %s, want 401", name, code, b)
		}
	}
}

// A server not given the OAuth store accepts no token at all.
func TestOAuthBearerServerWithoutOAuthStore(t *testing.T) {
	e := newOAuthEnv(t)
	tok, _ := e.issue(t, e.userID, testPublicURL, oauth.KindAccess, time.Now().Add(time.Hour))
	e.srv.opts.OAuth = nil
	if code, b := e.do(t, http.MethodGet, "/api/v1/me", tok, nil); code != 401 {
		t.Fatalf("no OAuth store: %d %s, want 401", code, b)
	}
}

// The token acts with the user's current permissions and state, and its
// tool calls are audited under the user.
func TestOAuthBearerActsAsCurrentUser(t *testing.T) {
	e := newOAuthEnv(t)
	e.addUser(t, "bob", store.RoleUser, "files__echo")
	bob, err := e.db.GetUserByName(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := e.issue(t, bob.ID, testPublicURL, oauth.KindAccess, time.Now().Add(time.Hour))
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__echo/call", tok, map[string]any{}); code != 200 {
		t.Fatalf("call as bob: %d %s", code, b)
	}
	recs, err := e.db.ListAudit(t.Context(), store.AuditFilter{})
	if err != nil || len(recs) != 1 || recs[0].UserID != bob.ID || recs[0].Tool != "files__echo" {
		t.Fatalf("audit %+v, %v: want one files__echo call by bob", recs, err)
	}
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__secret/call", tok, map[string]any{}); code != 403 && code != 404 {
		t.Fatalf("files__secret is not bob's: %d %s", code, b)
	}
	bob.Disabled = true
	if _, err := e.db.UpdateUser(t.Context(), bob); err != nil {
		t.Fatal(err)
	}
	e.srv.users.Invalidate()
	if code, b := e.do(t, http.MethodGet, "/api/v1/me", tok, nil); code != 403 {
		t.Fatalf("disabled bob: %d %s, want 403", code, b)
	}
}

func storeAccess(hash, grantID string, exp time.Time) store.OAuthToken {
	return store.OAuthToken{Hash: hash, GrantID: grantID, Kind: store.OAuthAccess, ExpiresAt: exp}
}
