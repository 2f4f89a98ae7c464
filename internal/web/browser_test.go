package web_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "rewrite docs/screenshots/*.png from the browser test")

const chromiumPath = "/usr/bin/chromium"

// browser starts a headless chromium for the test and returns its context.
// Without chromium the test is skipped, except under CI (env CI set),
// where it fails: .ci/browser-install provides it there.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is missing at %s; CI installs it with .ci/browser-install", chromiumPath)
		}
		t.Skipf("chromium is missing at %s; install it with .ci/browser-install to run the browser tests", chromiumPath)
	}
	// The background-networking, component-update and sync switches stop
	// chromium from calling Google hosts, which are unreachable here.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 860),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	// Run once without a deadline: the first Run starts the browser, which
	// lives as long as this context.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return ctx
}

// step runs actions under a deadline, failing the test with what was
// being done.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitFor polls a JavaScript predicate until it is true. On timeout it
// reports the page's text, which usually says what went wrong.
func waitFor(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, text)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// screenshot writes the viewport (what a user sees) as docs/screenshots/name.png, only with
// -update-screenshots so that normal runs leave the files alone.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !*updateScreenshots {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join("..", "..", "docs", "screenshots", name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatalf("writing %s: %v", p, err)
	}
}

// noSideScroll checks the page is not wider than the viewport.
func noSideScroll(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("%s scrolls sideways by %d px at %d px wide", page, w, eval[int](t, ctx, `window.innerWidth`))
	}
}

// TestBrowser drives the UI in one headless chromium; each subtest has
// its own Switchboard stack and its own tab.
func TestBrowser(t *testing.T) {
	b := browser(t)
	tests := []struct {
		name string
		run  func(t *testing.T, b context.Context)
	}{
		{"flow", testFlow},
		{"stop", testStop},
		{"resume after reload", testResume},
		{"handoff", testHandoff},
		{"tool forms", testToolForms},
		{"no model hint", testNoModelHint},
		{"refused config notice", testConfigNotice},
		{"api key", testAPIKey},
		{"rendering", testRendering},
		{"roles", testRoles},
		{"runtime entries", testEntries},
		{"connections", testConnections},
		{"connections-sign-in", testConnectionsSignIn},
		{"oauth consent", testConsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, b) })
	}
}

// tab opens a new tab in the browser b, closed when the test ends. The
// test fails on any uncaught exception, console error or security message
// (a Content-Security-Policy violation) of the tab. Network messages are
// not errors here: the pages handle HTTP failures themselves.
func tab(t *testing.T, b context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("opening a tab: %v", err)
	}
	msgs := chromedp.Console(ctx)
	var bad []string // owned by the goroutine until done is closed
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return // the tab closed
			}
			if m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError && m.Source != "network" {
				bad = append(bad, fmt.Sprintf("%s (%s) at %s:%d: %s", m.Type, m.Source, m.URL, m.Line, m.Text))
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, m := range bad {
			t.Errorf("browser console: %s", m)
		}
	})
	return ctx
}

// testFlow is the walk through the UI: approve and deny a write,
// then the servers, tools and audit pages, then the chat at phone width.
func testFlow(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)

	t.Run("approve", func(t *testing.T) {
		step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("input")))
		step(t, ctx, "typing a message", chromedp.SendKeys(chromedp.ID("input"), "please write approved.txt"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the approval card", `!!document.querySelector('.approval .approve')`)
		card := eval[string](t, ctx, `document.querySelector('.tool-card').textContent`)
		if !strings.Contains(card, "write_file") || !strings.Contains(card, "waiting for approval") {
			t.Errorf("tool card = %q, want write_file waiting for approval", card)
		}
		if got := eval[string](t, ctx, `document.querySelector('.approval pre').textContent`); !strings.Contains(got, `"path": "approved.txt"`) {
			t.Errorf("approval card shows arguments %q, want them pretty-printed", got)
		}
		// The approval buttons are reachable from the keyboard.
		if got := eval[string](t, ctx, `document.activeElement.textContent`); got != "Approve once" {
			t.Errorf("focus is on %q, want the Approve once button", got)
		}
		step(t, ctx, "tabbing", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](t, ctx, `document.activeElement.textContent`); got != "Approve for conversation" {
			t.Errorf("after Tab focus is on %q, want Approve for conversation", got)
		}
		screenshot(t, ctx, "chat-approval")
		step(t, ctx, "approving once", chromedp.Click(chromedp.CSS(".approval .approve")))
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant:not(.streaming)')].some(e => e.textContent.includes('no errors'))`)
		waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
		b, err := os.ReadFile(filepath.Join(s.root, "approved.txt"))
		if err != nil || string(b) != "hello from the browser" {
			t.Errorf("approved.txt = %q, %v; want the model's content", b, err)
		}
		if got := eval[string](t, ctx, `document.querySelector('.tool-card .badge').textContent`); !strings.HasPrefix(got, "done") {
			t.Errorf("tool card state = %q, want done with a duration", got)
		}
		// The answer's markdown is rendered: inline code and a list.
		if n := eval[int](t, ctx, `document.querySelectorAll('.msg.assistant code, .msg.assistant li').length`); n != 3 {
			t.Errorf("answer has %d code and list elements, want 3", n)
		}
		screenshot(t, ctx, "chat-answer")
	})

	t.Run("deny", func(t *testing.T) {
		step(t, ctx, "starting a new chat", chromedp.Click(chromedp.ID("new-conv")),
			chromedp.SendKeys(chromedp.ID("input"), "now write denied.txt\n"))
		waitFor(t, ctx, "the approval card", `!!document.querySelector('.approval .deny')`)
		step(t, ctx, "denying with a reason", chromedp.SendKeys(chromedp.CSS(".approval .reason"), "not today"),
			chromedp.Click(chromedp.CSS(".approval .deny")))
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant')].some(e => e.textContent.includes('did not write'))`)
		if _, err := os.Stat(filepath.Join(s.root, "denied.txt")); !os.IsNotExist(err) {
			t.Errorf("denied.txt exists after Deny (stat: %v)", err)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('#conv-list li').length`); n != 2 {
			t.Errorf("conversation list has %d entries, want 2", n)
		}
	})

	t.Run("servers", func(t *testing.T) {
		step(t, ctx, "opening servers", chromedp.Navigate(s.url+"/servers"), chromedp.WaitVisible(chromedp.CSS(`[data-server="notes"]`)))
		step(t, ctx, "opening stderr", chromedp.Click(chromedp.CSS(`[data-server="notes"] details:last-of-type summary`)))
		waitFor(t, ctx, "the stderr tail", `document.querySelector('[data-server="notes"]').textContent.includes('permission denied')`)
		step(t, ctx, "restarting", chromedp.Click(chromedp.CSS(`[data-server="notes"] button[aria-label="Restart notes"]`)))
		select {
		case name := <-s.restarts:
			if name != "notes" {
				t.Errorf("restarted %q, want notes", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the Restart button did not restart the server")
		}
		screenshot(t, ctx, "servers")
	})

	t.Run("tools", func(t *testing.T) {
		step(t, ctx, "opening tools", chromedp.Navigate(s.url+"/tools"), chromedp.WaitVisible(chromedp.CSS(`[data-tool="calculator"]`)),
			chromedp.SendKeys(chromedp.ID("search"), "arithmetic"))
		if n := eval[int](t, ctx, `document.querySelectorAll('#tools .card').length`); n != 1 {
			t.Errorf("search for 'arithmetic' shows %d tools, want 1 (calculator)", n)
		}
		step(t, ctx, "running the calculator",
			chromedp.Click(chromedp.CSS(`[data-tool="calculator"] .try summary`)),
			chromedp.SendKeys(chromedp.ID("f-calculator-expression"), "(3 + 4) * 6"),
			chromedp.Click(chromedp.CSS(`form[data-tool="calculator"] button[type="submit"]`)))
		waitFor(t, ctx, "the result", `!!document.querySelector('.result-text')`)
		if got := eval[string](t, ctx, `document.querySelector('.result-text').textContent`); !strings.Contains(got, "42") {
			t.Errorf("calculator result = %q, want 42", got)
		}
		screenshot(t, ctx, "tools")
	})

	t.Run("audit", func(t *testing.T) {
		step(t, ctx, "opening audit", chromedp.Navigate(s.url+"/audit"))
		waitFor(t, ctx, "three calls", `document.querySelectorAll('#audit-rows tr').length === 3`)
		got := eval[[]string](t, ctx, `[...document.querySelectorAll('#audit-rows tr')].map(r => [1, 3, 4].map(i => r.children[i].firstChild.textContent).join(' '))`)
		want := []string{"calculator ok auto", "write_file denied declined", "write_file ok approved"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("audit rows, newest first:\n got %q\nwant %q", got, want)
		}
		step(t, ctx, "filtering by tool", chromedp.SendKeys(chromedp.ID("f-tool"), "calc*\n"))
		waitFor(t, ctx, "one row", `document.querySelectorAll('#audit-rows tr').length === 1`)
		eval[string](t, ctx, `document.getElementById('f-tool').value = ''`)
		step(t, ctx, "clearing the filter", chromedp.SendKeys(chromedp.ID("f-tool"), kb.Enter))
		waitFor(t, ctx, "three rows", `document.querySelectorAll('#audit-rows tr').length === 3`)
		// A since in the future and an unknown user both match nothing.
		eval[string](t, ctx, `document.getElementById('f-since').value = '2999-01-01T00:00'`)
		step(t, ctx, "filtering by time", chromedp.SendKeys(chromedp.ID("f-user"), kb.Enter))
		waitFor(t, ctx, "no rows", `document.querySelectorAll('#audit-rows tr').length === 0 && document.getElementById('audit-status').textContent === 'No tool calls match.'`)
		eval[string](t, ctx, `document.getElementById('f-since').value = ''`)
		step(t, ctx, "filtering by user", chromedp.SendKeys(chromedp.ID("f-user"), "local\n"))
		waitFor(t, ctx, "three rows", `document.querySelectorAll('#audit-rows tr').length === 3`)
		step(t, ctx, "expanding arguments", chromedp.Click(chromedp.CSS(`#audit-rows tr:last-child details summary`)))
		screenshot(t, ctx, "audit")
	})

	t.Run("phone", func(t *testing.T) {
		step(t, ctx, "narrowing to 375 px", chromedp.EmulateViewport(375, 780))
		for _, p := range []string{"/servers", "/tools", "/audit", "/"} {
			step(t, ctx, "opening "+p, chromedp.Navigate(s.url+p), chromedp.WaitVisible(chromedp.ID("main")))
			noSideScroll(t, ctx, p)
			// Every form control has a label that names it.
			if got := eval[[]string](t, ctx, `[...document.querySelectorAll('input, select, textarea')].filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.id || e.outerHTML)`); len(got) > 0 {
				t.Errorf("%s has form controls without a label: %q", p, got)
			}
		}
		step(t, ctx, "opening the first conversation", chromedp.Click(chromedp.CSS(`#conv-list li:last-child .open`)))
		waitFor(t, ctx, "its messages", `document.querySelectorAll('.msg.assistant').length > 0`)
		noSideScroll(t, ctx, "/ with a conversation")
		screenshot(t, ctx, "chat-phone")
	})
}
