package server

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
)

func (e *env) postForm(t *testing.T, path string, form url.Values) int {
	t.Helper()
	resp := e.send(t, http.MethodPost, path, "", form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	resp.Body.Close()
	return resp.StatusCode
}

func TestOAuthRevoke(t *testing.T) {
	e := newOAuthEnv(t)
	hour := time.Now().Add(time.Hour)
	for _, kind := range []oauth.Kind{oauth.KindAccess, oauth.KindRefresh} {
		tok, g := e.issue(t, e.userID, testPublicURL, kind, hour)
		// A second access token from the same grant dies with it.
		sibling, hash := oauth.NewSecret(oauth.KindAccess)
		if err := e.db.PutOAuthToken(t.Context(), storeAccess(hash, g.ID, hour)); err != nil {
			t.Fatal(err)
		}
		if code, b := e.do(t, http.MethodGet, "/api/v1/me", sibling, nil); code != 200 {
			t.Fatalf("before revocation: %d %s", code, b)
		}
		if code := e.postForm(t, "/oauth/revoke", url.Values{"token": {tok}, "token_type_hint": {"access_token"}}); code != 200 {
			t.Fatalf("revoking a %s: %d", kind, code)
		}
		if code, b := e.do(t, http.MethodGet, "/api/v1/me", sibling, nil); code != 401 {
			t.Fatalf("after revoking a %s, the grant's access token: %d %s, want 401", kind, code, b)
		}
		grants, err := e.db.ListOAuthGrants(t.Context(), e.userID)
		if err != nil || len(grants) != 0 {
			t.Fatalf("live grants after revocation: %+v, %v", grants, err)
		}
	}
	// Unknown and malformed tokens get 200 and reveal nothing; no token is 400.
	forged, _ := oauth.NewSecret(oauth.KindAccess)
	for _, tok := range []string{forged, "sb_not-a-token", "anything"} {
		if code := e.postForm(t, "/oauth/revoke", url.Values{"token": {tok}}); code != 200 {
			t.Errorf("revoking %q: %d, want 200", tok, code)
		}
	}
	if code := e.postForm(t, "/oauth/revoke", url.Values{}); code != 400 {
		t.Errorf("no token: %d, want 400", code)
	}
}
