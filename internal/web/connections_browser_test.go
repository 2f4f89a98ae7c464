package web_test

import (
	"context"
	"fmt"
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
	mu    sync.Mutex
	creds map[string]string // "userID/server" -> value; mu guards creds
}

func (c *connectionsFake) ListConnections(_ context.Context, userID string) ([]server.Connection, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.creds[userID+"/gh"]
	conn := server.Connection{Server: "gh", Kind: "server", Takes: "bearer token", Connected: ok}
	if ok {
		conn.Since = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	}
	return []server.Connection{conn}, nil
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
