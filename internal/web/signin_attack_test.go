package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/signin"
)

// flowTo runs a sign-in as who with a cookie jar, following the browser's
// redirects through Hydra and the login app up to Switchboard's callback,
// and returns the client, the callback URL the provider sent it to, and
// the flow cookie /auth/login set.
func flowTo(t *testing.T, p *idp, base string, who person) (*http.Client, string, *http.Cookie) {
	t.Helper()
	p.next(who)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), base+"/auth/callback") {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	first := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp := getWith(t, first, base+"/auth/login", nil)
	var flow *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "switchboard_signin" {
			flow = ck
		}
	}
	if flow == nil {
		t.Fatalf("/auth/login set no flow cookie: %v", resp.Header["Set-Cookie"])
	}
	resp = getWith(t, c, resp.Header.Get("Location"), nil)
	cb := resp.Header.Get("Location")
	if !strings.HasPrefix(cb, base+"/auth/callback?") {
		t.Fatalf("the provider sent the browser to %q (%s), want the callback", cb, resp.Status)
	}
	return c, cb, flow
}

func getWith(t *testing.T, c *http.Client, u string, cookies []*http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	return resp
}

// noFollow is a client without a jar that does not follow redirects.
var noFollow = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// sessionOf returns the session cookie a callback response set, or nil.
func sessionOf(resp *http.Response) *http.Cookie {
	for _, ck := range resp.Cookies() {
		if ck.Name == "switchboard_session" && ck.Value != "" {
			return ck
		}
	}
	return nil
}

// meStatus is the status of GET /api/v1/me with the session cookie.
func meStatus(t *testing.T, base string, session *http.Cookie) int {
	t.Helper()
	return getWith(t, noFollow, base+"/api/v1/me", []*http.Cookie{session}).StatusCode
}

// callback sends the callback URL with the given flow cookie.
func callback(t *testing.T, cb string, flow *http.Cookie, more ...*http.Cookie) *http.Response {
	t.Helper()
	var cs []*http.Cookie
	if flow != nil {
		cs = append(cs, &http.Cookie{Name: flow.Name, Value: flow.Value})
	}
	return getWith(t, noFollow, cb, append(cs, more...))
}

// signIn completes a sign-in as who and returns the session cookie.
func signIn(t *testing.T, p *idp, base string, who person) *http.Cookie {
	t.Helper()
	_, cb, flow := flowTo(t, p, base, who)
	resp := callback(t, cb, flow)
	s := sessionOf(resp)
	if resp.StatusCode != http.StatusSeeOther || s == nil {
		t.Fatalf("signing in as %s: %s, cookies %v", who.Name, resp.Status, resp.Header["Set-Cookie"])
	}
	return s
}

// TestSignInAttacks tries to get past the sign-in with what an attacker
// has: a callback for another browser, a used code, a swapped nonce, a
// planted session id, a cross-site request riding the cookie, a session
// past its time or of a deleted user. Each must be refused.
func TestSignInAttacks(t *testing.T) {
	p := startIdP(t)
	var clock atomic.Int64 // extra time added to the server's clock
	now := func() time.Time { return time.Now().Add(time.Duration(clock.Load())) }
	s := newStack(t, stackOptions{keys: true, now: now, signIn: signInFor(t, p, nil)})

	t.Run("cookie flags", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, bob)
		if !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.Path != "/" || flow.MaxAge != 600 || flow.Secure {
			t.Errorf("flow cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, 10 minutes, not Secure on plain-http loopback", flow)
		}
		resp := callback(t, cb, flow)
		sess := sessionOf(resp)
		if sess == nil {
			t.Fatalf("no session cookie: %s %v", resp.Status, resp.Header["Set-Cookie"])
		}
		if !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || sess.Domain != "" || !strings.HasPrefix(sess.Value, "sbs_") {
			t.Errorf("session cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, no Domain", sess)
		}
		if got := resp.Header.Get("Location"); got != "/" {
			t.Errorf("after sign-in the browser goes to %q, want /", got)
		}
	})

	t.Run("state mismatch", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, bob)
		u, _ := url.Parse(cb)
		q := u.Query()
		q.Set("state", signin.NewFlow().State)
		u.RawQuery = q.Encode()
		if resp := callback(t, u.String(), flow); resp.StatusCode != http.StatusBadRequest || sessionOf(resp) != nil {
			t.Errorf("callback with another state = %s, want 400 and no session", resp.Status)
		}
	})

	t.Run("missing state or flow cookie", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, bob)
		if resp := callback(t, cb, nil); resp.StatusCode != http.StatusBadRequest || sessionOf(resp) != nil {
			t.Errorf("callback in a browser that started no sign-in = %s, want 400", resp.Status)
		}
		u, _ := url.Parse(cb)
		q := u.Query()
		q.Del("state")
		u.RawQuery = q.Encode()
		if resp := callback(t, u.String(), flow); resp.StatusCode != http.StatusBadRequest || sessionOf(resp) != nil {
			t.Errorf("callback without state = %s, want 400", resp.Status)
		}
	})

	t.Run("code replay", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, bob)
		if resp := callback(t, cb, flow); sessionOf(resp) == nil {
			t.Fatalf("first use of the code = %s, want a session", resp.Status)
		}
		// The attacker replays the callback with the flow cookie too.
		if resp := callback(t, cb, flow); resp.StatusCode != http.StatusUnauthorized || sessionOf(resp) != nil {
			t.Errorf("replayed code = %s, want 401 and no session", resp.Status)
		}
	})

	t.Run("nonce mismatch", func(t *testing.T) {
		_, _, flowA := flowTo(t, p, s.url, bob)
		_, cbB, flowB := flowTo(t, p, s.url, bob)
		a, err := signin.ParseFlow(flowA.Value)
		if err != nil {
			t.Fatal(err)
		}
		b, err := signin.ParseFlow(flowB.Value)
		if err != nil {
			t.Fatal(err)
		}
		// B's state and verifier, so the exchange succeeds; A's nonce,
		// which is not in B's ID token.
		forged := &http.Cookie{Name: flowB.Name, Value: signin.Flow{State: b.State, Nonce: a.Nonce, Verifier: b.Verifier}.Encode()}
		if resp := callback(t, cbB, forged); resp.StatusCode != http.StatusUnauthorized || sessionOf(resp) != nil {
			t.Errorf("ID token with another nonce = %s, want 401", resp.Status)
		}
	})

	t.Run("wrong PKCE verifier", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, bob)
		f, _ := signin.ParseFlow(flow.Value)
		f.Verifier = signin.NewFlow().Verifier
		if resp := callback(t, cb, &http.Cookie{Name: flow.Name, Value: f.Encode()}); resp.StatusCode != http.StatusUnauthorized || sessionOf(resp) != nil {
			t.Errorf("code with another verifier = %s, want 401", resp.Status)
		}
	})

	t.Run("code issued to another client", func(t *testing.T) {
		// A second client of the same provider, with the same redirect
		// URI: its code, brought to Switchboard's callback with a flow
		// that matches, is refused (the exchange is authenticated as
		// Switchboard's own client).
		other, _ := p.client(t, s.url+"/auth/callback")
		c, _, flow := flowTo(t, p, s.url, bob)
		f, _ := signin.ParseFlow(flow.Value)
		sum := sha256.Sum256([]byte(f.Verifier))
		q := url.Values{
			"client_id": {other}, "response_type": {"code"}, "scope": {"openid"},
			"redirect_uri": {s.url + "/auth/callback"}, "state": {f.State}, "nonce": {f.Nonce},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		}
		resp := getWith(t, c, p.Issuer+"oauth2/auth?"+q.Encode(), nil)
		cb := resp.Header.Get("Location")
		if !strings.HasPrefix(cb, s.url+"/auth/callback?") || !strings.Contains(cb, "code=") {
			t.Fatalf("the other client's flow ended at %q (%s)", cb, resp.Status)
		}
		if resp := callback(t, cb, flow); resp.StatusCode != http.StatusUnauthorized || sessionOf(resp) != nil {
			t.Errorf("a code for another client = %s, want 401", resp.Status)
		}
	})

	t.Run("person without a role", func(t *testing.T) {
		_, cb, flow := flowTo(t, p, s.url, carol)
		if resp := callback(t, cb, flow); resp.StatusCode != http.StatusForbidden || sessionOf(resp) != nil {
			t.Errorf("carol, whose group has no role = %s, want 403", resp.Status)
		}
		if _, err := s.db.GetUserByName(t.Context(), "carol"); err == nil {
			t.Error("a user was created for a person refused a role")
		}
	})

	t.Run("session fixation", func(t *testing.T) {
		planted := signIn(t, p, s.url, bob)
		// The attacker's session id is in the victim's browser when the
		// victim signs in: the sign-in ends it and issues another.
		_, cb, flow := flowTo(t, p, s.url, bob)
		resp := callback(t, cb, flow, planted)
		fresh := sessionOf(resp)
		if fresh == nil || fresh.Value == planted.Value {
			t.Fatalf("sign-in kept the session id it found (%v)", fresh)
		}
		if got := meStatus(t, s.url, planted); got != http.StatusUnauthorized {
			t.Errorf("the planted session after the sign-in = %d, want 401", got)
		}
		if got := meStatus(t, s.url, fresh); got != http.StatusOK {
			t.Errorf("the new session = %d, want 200", got)
		}
	})

	t.Run("CSRF on a cookie-authenticated POST", func(t *testing.T) {
		sess := signIn(t, p, s.url, bob)
		post := func(h map[string]string) int {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url+"/api/v1/conversations", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range h {
				req.Header.Set(k, v)
			}
			req.AddCookie(sess)
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		for name, h := range map[string]map[string]string{
			"no header":            {},
			"form from elsewhere":  {"Origin": "https://evil.example"},
			"sibling subdomain":    {server.CSRFHeader: "1", "Sec-Fetch-Site": "same-site"},
			"header, other origin": {server.CSRFHeader: "1", "Origin": "http://evil.example"},
		} {
			if got := post(h); got != http.StatusForbidden {
				t.Errorf("%s: POST = %d, want 403", name, got)
			}
		}
		if got := post(map[string]string{server.CSRFHeader: "1", "Origin": s.url, "Sec-Fetch-Site": "same-origin"}); got != http.StatusCreated && got != http.StatusOK {
			t.Errorf("the UI's own POST = %d, want it accepted", got)
		}
	})

	t.Run("logout ends the session", func(t *testing.T) {
		sess := signIn(t, p, s.url, bob)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url+"/auth/logout", nil)
		req.AddCookie(sess)
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("logout without the CSRF header = %s, want 403 (a page elsewhere must not sign people out)", resp.Status)
		}
		req.Header.Set(server.CSRFHeader, "1")
		resp, err = noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("logout = %s, want 204", resp.Status)
		}
		// The stolen cookie value is worthless once signed out: the
		// session is gone from the store every replica reads.
		if got := meStatus(t, s.url, sess); got != http.StatusUnauthorized {
			t.Errorf("the session after logout = %d, want 401", got)
		}
	})

	t.Run("idle and absolute expiry", func(t *testing.T) {
		sess := signIn(t, p, s.url, bob)
		clock.Store(int64(59 * time.Minute))
		if got := meStatus(t, s.url, sess); got != http.StatusOK {
			t.Fatalf("a session used after 59 minutes = %d, want 200 (idle is 1h)", got)
		}
		clock.Store(int64(59*time.Minute + 61*time.Minute))
		if got := meStatus(t, s.url, sess); got != http.StatusUnauthorized {
			t.Errorf("a session unused for 61 minutes = %d, want 401", got)
		}
		clock.Store(0)
		sess = signIn(t, p, s.url, bob)
		for h := 1; h <= 25; h++ { // used every 50 minutes, never idle
			clock.Store(int64(time.Duration(h) * 50 * time.Minute))
			got := meStatus(t, s.url, sess)
			if h*50 < 24*60 && got != http.StatusOK {
				t.Fatalf("an active session after %d minutes = %d, want 200", h*50, got)
			}
			if h*50 >= 24*60 && got != http.StatusUnauthorized {
				t.Errorf("a session after %d minutes, past its 24h lifetime = %d, want 401", h*50, got)
			}
		}
		clock.Store(0)
	})

	t.Run("deleted user", func(t *testing.T) {
		sess := signIn(t, p, s.url, bob)
		u, err := s.db.GetUserByName(t.Context(), "bob")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.db.DeleteUser(t.Context(), u.ID); err != nil {
			t.Fatal(err)
		}
		if got := meStatus(t, s.url, sess); got != http.StatusUnauthorized {
			t.Errorf("the session of a deleted user = %d, want 401", got)
		}
		// Signing in again makes a new user: the account's link went
		// with the user.
		again := signIn(t, p, s.url, bob)
		if got := meStatus(t, s.url, again); got != http.StatusOK {
			t.Errorf("signing in after the user was deleted = %d, want a new user", got)
		}
		if nu, err := s.db.GetUserByName(t.Context(), "bob"); err != nil || nu.ID == u.ID {
			t.Errorf("after deletion bob is %+v (%v), want a new user", nu, errors.Unwrap(err))
		}
	})
}
