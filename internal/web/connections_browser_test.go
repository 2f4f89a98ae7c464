package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// connectionsFake keeps users' credentials in memory, keyed by user ID, as
// app does in the store: the page's part is the form and what it shows.
type connectionsFake struct {
	mu      sync.Mutex
	creds   map[string]string // "userID/server" -> value; mu guards creds and states
	states  map[string]string // userID -> the state of their authorization in progress
	authURL string            // the authorization server's authorize endpoint
}

// authServer is the far end of a sign-in for the page's part: it sends
// the browser back to the redirect URI with the state and a code.
func authServer(t *testing.T) string {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	}))
	t.Cleanup(as.Close)
	return as.URL + "/authorize"
}

func (c *connectionsFake) ListConnections(_ context.Context, userID string) ([]server.Connection, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.creds[userID+"/gh"]
	conn := server.Connection{Server: "gh", Kind: "server", Takes: "bearer token", Connected: ok}
	if ok {
		conn.Since = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	}
	_, signedIn := c.creds[userID+"/tracker"]
	tracker := server.Connection{Server: "tracker", Kind: "server", Takes: "sign-in (OAuth)", OAuth: true, Connected: signedIn}
	if signedIn {
		tracker.Since = conn.Since
		if tracker.Since.IsZero() {
			tracker.Since = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
		}
	}
	return []server.Connection{conn, tracker}, nil
}

// BeginAuthorization sends the browser to authURL, an authorization
// server that answers every request by sending the browser back with a
// code; the state is remembered for the user, as app does in the store.
func (c *connectionsFake) BeginAuthorization(_ context.Context, userID, srv, redirectURL string) (string, error) {
	if srv != "tracker" {
		return "", fmt.Errorf("%q is not signed in to: %w", srv, store.ErrNotFound)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.states[userID] = "state-" + userID
	return c.authURL + "?state=" + c.states[userID] + "&redirect_uri=" + url.QueryEscape(redirectURL), nil
}

func (c *connectionsFake) FinishAuthorization(_ context.Context, userID string, cb server.AuthorizationCallback) (server.Connection, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cb.State == "" || c.states[userID] != cb.State || cb.Code != "the-code" {
		return server.Connection{}, fmt.Errorf("no authorization of yours for %+v: %w", cb, store.ErrNotFound)
	}
	delete(c.states, userID)
	c.creds[userID+"/tracker"] = "oauth"
	return server.Connection{Server: "tracker", OAuth: true, Connected: true}, nil
}

func (c *connectionsFake) Connect(_ context.Context, userID, srv, value string) (server.Connection, error) {
	if srv != "gh" {
		return server.Connection{}, fmt.Errorf("%q takes no credentials: %w", srv, store.ErrNotFound)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.creds[userID+"/"+srv] = value
	return server.Connection{Server: srv, Connected: true}, nil
}

func (c *connectionsFake) Disconnect(_ context.Context, userID, srv string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.creds[userID+"/"+srv]; !ok {
		return store.ErrNotFound
	}
	delete(c.creds, userID+"/"+srv)
	return nil
}

func (c *connectionsFake) values() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.creds)
}

// testConnections: a user connects a token on the Connections page; the
// page then says connected since when, never the value, and the value went
// to the user's own record; Disconnect removes it.
func testConnections(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{keys: true, plainUser: true})
	ctx := tab(t, b)
	step(t, ctx, "opening connections", chromedp.Navigate(s.url+"/connections"), chromedp.WaitReady(chromedp.ID("main")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.key)+`), true`)
	step(t, ctx, "reopening with the key", chromedp.Navigate(s.url+"/connections"), chromedp.WaitVisible(chromedp.CSS(`[data-server="gh"]`)))
	const secret = "ghp-browser-secret-77"
	eval[bool](t, ctx, `document.querySelector('[data-server="gh"] input').value = `+jsString(secret)+
		`, document.querySelector('[data-server="gh"] button[type=submit]').click(), true`)
	waitFor(t, ctx, "connected", `(document.querySelector('[data-server="gh"]')||{}).textContent.includes('connected since')`)
	if text := eval[string](t, ctx, `document.body.innerHTML`); strings.Contains(text, secret) {
		t.Error("the page shows the credential after connecting")
	}
	if got := s.conns.values(); !strings.Contains(got, "/gh:"+secret) {
		t.Errorf("the credential did not reach the user's record: %s", got)
	}
	eval[bool](t, ctx, `document.querySelector('[data-server="gh"] button.danger').click(), true`)
	waitFor(t, ctx, "disconnected", `(document.querySelector('[data-server="gh"]')||{}).textContent.includes('not connected')`)
	if got := s.conns.values(); got != "map[]" {
		t.Errorf("after Disconnect the records are %s", got)
	}
}

// testConnectionsSignIn: Connect on a server users sign in to sends the
// browser to its authorization server; back on the callback page, the
// page finishes the sign-in as the signed-in user, removes the answer
// from the address bar, and shows the server connected.
func testConnectionsSignIn(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{keys: true, plainUser: true})
	s.conns.authURL = authServer(t)
	ctx := tab(t, b)
	step(t, ctx, "opening connections", chromedp.Navigate(s.url+"/connections"), chromedp.WaitReady(chromedp.ID("main")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.key)+`), true`)
	step(t, ctx, "reopening with the key", chromedp.Navigate(s.url+"/connections"), chromedp.WaitVisible(chromedp.CSS(`[data-server="tracker"] button`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-server="tracker"]').textContent`); !strings.Contains(got, "not connected") || strings.Contains(got, "connected since") {
		t.Errorf("the tracker row before signing in: %q", got)
	}
	eval[bool](t, ctx, `document.querySelector('[data-server="tracker"] button').click(), true`)
	// Two navigations follow (to the authorization server and back), so
	// wait for the element, which survives them, not on a script.
	step(t, ctx, "signing in", chromedp.WaitVisible(chromedp.CSS(`[data-server="tracker"] .badge.ok`)))
	waitFor(t, ctx, "signed in", `location.pathname === '/connections' && document.querySelector('[data-server="tracker"]').textContent.includes('connected since')`)
	if q := eval[string](t, ctx, `location.search`); q != "" {
		t.Errorf("the answer stayed in the address bar: %q", q)
	}
	if got := eval[string](t, ctx, `document.getElementById('conn-status').textContent`); !strings.Contains(got, "tracker connected") {
		t.Errorf("the page says %q after signing in", got)
	}
	if got := s.conns.values(); !strings.Contains(got, "/tracker:oauth") {
		t.Errorf("the sign-in did not reach the user's record: %s", got)
	}
}
