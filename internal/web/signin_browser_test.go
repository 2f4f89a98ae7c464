package web_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// inPage runs an async expression in the page and returns its JSON
// result, or "ERR <status> <code>" when it throws an SB.APIError.
func inPage(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	eval[bool](t, ctx, `window.__r = undefined; (async () => { try { window.__r = JSON.stringify(await (`+expr+`)); } catch (e) { window.__r = "ERR " + e.status + " " + e.code; } })(), true`)
	waitFor(t, ctx, "the answer of "+expr, `window.__r !== undefined`)
	return eval[string](t, ctx, `window.__r`)
}

// signInAs walks the real sign-in: the header's button, Hydra, the
// provider's login and consent app, Switchboard's callback, back to the chat.
func signInAs(t *testing.T, ctx context.Context, p *idp, base string, who person) {
	t.Helper()
	p.next(who)
	step(t, ctx, "opening the chat", chromedp.Navigate(base+"/"))
	waitFor(t, ctx, "the sign-in button", `!!document.getElementById('sign-in') && !document.getElementById('sign-in').hidden && document.getElementById('sign-in').textContent === 'Sign in with Hydra'`)
	// The click leaves for the provider and comes back: RunResponse waits
	// for the last page of that trip to load.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(rctx, chromedp.Click(chromedp.ID("sign-in")))
	if err != nil {
		t.Fatalf("signing in as %s: %v", who.Name, err)
	}
	if resp.Status != 200 {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("signing in as %s ended at %s with %d:\n%s", who.Name, resp.URL, resp.Status, text)
	}
	waitFor(t, ctx, who.Name+" signed in", `location.href === `+jsString(base+"/")+` && !document.getElementById('who').hidden && document.getElementById('who-name').textContent.startsWith('Signed in as `+who.Name+`')`)
}

// TestSignInBrowser signs two people in through a real OpenID provider
// (Ory Hydra) in a real browser: alice's group makes her an admin, bob's
// gives him one tool; each sees and may do only what their role allows,
// bob's call is audited as bob, and signing out ends the session.
func TestSignInBrowser(t *testing.T) {
	p := startIdP(t)
	b := browser(t)
	s := newStack(t, stackOptions{keys: true, signIn: signInFor(t, p, nil)})
	ctx := tab(t, b)

	signInAs(t, ctx, p, s.url, alice)
	// The stack already has a user named alice (an API key's): the
	// provider's alice is another user, never linked to it by name.
	if got := eval[string](t, ctx, `document.getElementById('who-name').textContent`); !strings.HasPrefix(got, "Signed in as alice-") {
		t.Errorf("header = %q, want the provider's alice under a name of her own (the key user alice exists)", got)
	}
	if got := inPage(t, ctx, `SB.api("GET", "/api/v1/me")`); !strings.Contains(got, `"role":"admin"`) || !strings.Contains(got, `"session":true`) {
		t.Errorf("alice's /api/v1/me = %s, want an admin signed in by session", got)
	}
	if eval[bool](t, ctx, `document.querySelector('nav a[href="/changes"]').closest('li').hidden`) {
		t.Error("alice, an admin, does not see the held tools page")
	}
	if !eval[bool](t, ctx, `document.getElementById('key-box').hidden`) {
		t.Error("the API key box is offered while signed in")
	}
	// Signing out reloads the page; RunResponse waits for that load.
	octx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(octx, chromedp.Click(chromedp.ID("sign-out"))); err != nil {
		t.Fatalf("signing out: %v", err)
	}
	waitFor(t, ctx, "signed out", `!document.getElementById('sign-in').hidden && document.getElementById('who').hidden && !document.getElementById('key-box').hidden`)
	if got := inPage(t, ctx, `SB.api("GET", "/api/v1/me")`); got != "ERR 401 unauthorized" {
		t.Errorf("/api/v1/me after signing out = %s, want 401", got)
	}

	signInAs(t, ctx, p, s.url, bob)
	me := inPage(t, ctx, `SB.api("GET", "/api/v1/me")`)
	if !strings.Contains(me, `"role":"user"`) || !strings.Contains(me, `"tools":["notes__search_notes"]`) {
		t.Errorf("bob's /api/v1/me = %s, want a user with one tool", me)
	}
	waitFor(t, ctx, "the held tools link hidden for bob", `document.querySelector('nav a[href="/changes"]').closest('li').hidden`)
	if got := inPage(t, ctx, `SB.api("GET", "/api/v1/tools").then(r => r.items.map(x => x.name))`); got != `["notes__search_notes"]` {
		t.Errorf("bob's tools = %s, want only notes__search_notes", got)
	}
	// The call waits for an approval (the tool is not annotated); bob
	// approves it, also through his session, and gets the result.
	eval[bool](t, ctx, `window.__call = SB.api("POST", "/api/v1/tools/notes__search_notes/call", {arguments: {query: "plans", order: "newest"}}).then(r => JSON.stringify(r), e => "ERR " + e.status + " " + e.code), true`)
	waitFor(t, ctx, "bob's approval", `(window.__p = window.__p || SB.api("GET", "/api/v1/approvals").then(r => { window.__p = null; window.__pending = r.items; })) && (window.__pending || []).length > 0`)
	if got := inPage(t, ctx, `SB.api("POST", "/api/v1/approvals/" + window.__pending[0].id, {decision: "approve"}).then(() => "ok")`); got != `"ok"` {
		t.Fatalf("bob approving his call = %s", got)
	}
	if got := inPage(t, ctx, `window.__call`); !strings.Contains(got, "got ") {
		t.Errorf("bob's call of his tool = %s, want the tool's answer", got)
	}
	if got := inPage(t, ctx, `SB.api("POST", "/api/v1/tools/notes__move_note/call", {arguments: {}})`); !strings.HasPrefix(got, "ERR 404") {
		t.Errorf("bob's call of a tool he may not use = %s, want 404", got)
	}
	if got := inPage(t, ctx, `SB.api("POST", "/api/v1/agents", {name: "bobs", prompt: "x"})`); got != "ERR 403 forbidden" {
		t.Errorf("bob creating an agent = %s, want 403 forbidden", got)
	}
	// The same request without the UI's CSRF header, as a form or a
	// script on another page would send it, is refused.
	if got := inPage(t, ctx, `fetch("/api/v1/tools/notes__search_notes/call", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"arguments":{"query":"x","order":"newest"}}'}).then(r => r.status)`); got != "403" {
		t.Errorf("a cookie-signed-in POST without the CSRF header = %s, want 403", got)
	}

	recs, err := s.db.ListAudit(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	bobUser, err := s.db.GetUserByName(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, r := range recs {
		calls = append(calls, fmt.Sprintf("%s %s %s", r.User, r.Tool, r.Outcome))
		if r.User == "bob" && r.UserID != bobUser.ID {
			t.Errorf("audit record of bob has user id %q, want %q", r.UserID, bobUser.ID)
		}
	}
	if !slices.Contains(calls, "bob notes__search_notes ok") {
		t.Errorf("audit = %q, want bob's call of notes__search_notes recorded ok", calls)
	}
	if slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "alice") }) {
		t.Errorf("audit = %q has a call of alice's, who made none", calls)
	}
}
