package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// testEntries: an admin adds a server through the servers page's form:
// an invalid entry shows every problem and adds nothing; a valid one is
// listed with its secret shown as (set), then disabled and removed; the
// file's entry has no controls. An ordinary user sees no form.
func testEntries(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{keys: true})
	ctx := tab(t, b)
	step(t, ctx, "opening servers", chromedp.Navigate(s.url+"/servers"), chromedp.WaitReady(chromedp.ID("main")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.key)+`), true`)
	step(t, ctx, "reopening with the key", chromedp.Navigate(s.url+"/servers"), chromedp.WaitVisible(chromedp.ID("entry-form")))
	if eval[bool](t, ctx, `!!document.querySelector('[data-entry="server/notes"] button:not([aria-label^="Test"])')`) {
		t.Error("the file's entry has controls other than Test")
	}
	submit(t, ctx, "bad", `{"command":"x","url":"http://127.0.0.1:1"}`)
	waitFor(t, ctx, "the problems shown", `!document.getElementById('entry-problems').hidden`)
	if msg := eval[string](t, ctx, `document.getElementById('entry-problems').textContent`); !strings.Contains(msg, "not both") {
		t.Errorf("problems shown: %q", msg)
	}
	submit(t, ctx, "files", `{"command":"mcp-files","env":{"TOKEN":"sekret-1"}}`)
	waitFor(t, ctx, "the entry listed", `!!document.querySelector('[data-entry="server/files"]')`)
	if text := eval[string](t, ctx, `document.getElementById('entries').textContent`); strings.Contains(text, "sekret-1") || !strings.Contains(text, "(set)") {
		t.Errorf("the list shows %q", text)
	}
	eval[bool](t, ctx, `document.querySelector('[data-entry="server/files"] button[aria-label="Test files"]').click(), true`)
	waitFor(t, ctx, "the test's report", `document.querySelectorAll('[data-report="files"] li').length === 2`)
	if text := eval[string](t, ctx, `document.querySelector('[data-entry="server/files"]').textContent`); !strings.Contains(text, "All checks passed") || !strings.Contains(text, "tools: ok — 2 tools") {
		t.Errorf("after Test: %q", text)
	}
	eval[bool](t, ctx, `document.querySelector('[data-entry="server/notes"] button[aria-label="Test notes"]').click(), true`)
	waitFor(t, ctx, "the file entry's failing report", `document.querySelectorAll('[data-report="notes"] li.error').length === 1`)
	eval[bool](t, ctx, `document.querySelector('[data-entry="server/files"] button[aria-label="Disable files"]').click(), true`)
	waitFor(t, ctx, "the entry disabled", `!!document.querySelector('[data-entry="server/files"] button[aria-label="Enable files"]')`)
	eval[bool](t, ctx, `document.querySelector('[data-entry="server/files"] button[aria-label="Remove files"]').click(), true`)
	waitFor(t, ctx, "the entry gone", `!document.querySelector('[data-entry="server/files"]')`)

	u := newStack(t, stackOptions{keys: true, plainUser: true})
	ctx = tab(t, b)
	step(t, ctx, "opening servers as a user", chromedp.Navigate(u.url+"/servers"), chromedp.WaitReady(chromedp.ID("main")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(u.key)+`), true`)
	step(t, ctx, "reopening with the key", chromedp.Navigate(u.url+"/servers"), chromedp.WaitVisible(chromedp.CSS(`[data-server="notes"]`)))
	if eval[bool](t, ctx, `!!document.getElementById('entry-form') || !document.getElementById('entries').hidden`) {
		t.Error("an ordinary user sees the runtime entries")
	}
}

// submit fills the add form with name and body and sends it.
func submit(t *testing.T, ctx context.Context, name, body string) {
	t.Helper()
	eval[bool](t, ctx, `document.getElementById('entry-name').value = `+jsString(name)+`, document.getElementById('entry-body').value = `+jsString(body)+
		`, document.querySelector('#entry-form button[type=submit]').click(), true`)
}
