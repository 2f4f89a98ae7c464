package web_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
)

func testStop(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("input")),
		chromedp.SendKeys(chromedp.ID("input"), "wait for it"),
		// Shift+Enter adds a line instead of sending.
		chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.SendKeys(chromedp.ID("input"), "please"))
	if got := eval[string](t, ctx, `document.getElementById('input').value`); got != "wait for it\nplease" {
		t.Fatalf("input after Shift+Enter = %q, want two lines", got)
	}
	step(t, ctx, "sending", chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
	waitFor(t, ctx, "the first words", `[...document.querySelectorAll('.msg.assistant')].some(e => e.textContent.includes('think about'))`)
	if got := eval[string](t, ctx, `document.querySelector('details.note').textContent`); got != "ReasoningThe user wants me to wait." {
		t.Errorf("reasoning box = %q, want the model's reasoning apart from the answer", got)
	}
	if got := eval[string](t, ctx, `document.getElementById('messages').getAttribute('aria-busy')`); got != "true" {
		t.Errorf("messages aria-busy = %q during the run, want true", got)
	}
	step(t, ctx, "stopping", chromedp.Click(chromedp.ID("stop")))
	waitFor(t, ctx, "the stopped note", `[...document.querySelectorAll('.note.error')].some(e => e.textContent === 'Stopped.')`)
	select {
	case <-s.stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the model's request was not cancelled after Stop")
	}
	if hidden := eval[bool](t, ctx, `document.getElementById('stop').hidden && !document.getElementById('send').disabled`); !hidden {
		t.Error("after Stop the Stop button is shown or Send is disabled")
	}
}

func testHandoff(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"))
	waitFor(t, ctx, "the agents", `document.querySelectorAll('#agent option').length === 2`)
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#agent option')].map(o => o.value + '=' + o.textContent)`); strings.Join(got, "|") != "=assistant|bob=bob — handles notes" {
		t.Errorf("agent picker = %q, want assistant (default) and bob", got)
	}
	step(t, ctx, "mentioning bob", chromedp.SendKeys(chromedp.ID("input"), "@bob any notes?\n"))
	waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
	got := eval[[]string](t, ctx, `[...document.querySelectorAll('#messages > *')].map(e => e.className + ': ' + e.textContent)`)
	want := []string{
		"msg user: @bob any notes?",
		"note handoff: assistant hands over to @bob",
		"msg assistant: @bobBob here: nothing to write.",
		"note handoff: @bob answered; back to assistant",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("thread:\n got %q\nwant %q", got, want)
	}

	// A failed run shows the error; then the conversation is deleted
	// (two clicks: the first arms the button).
	step(t, ctx, "breaking the model", chromedp.SendKeys(chromedp.ID("input"), "break please\n"))
	waitFor(t, ctx, "the error", `[...document.querySelectorAll('.note.error')].some(e => e.textContent.includes('the run failed'))`)
	step(t, ctx, "deleting", chromedp.Click(chromedp.CSS("#conv-list .del")), chromedp.Click(chromedp.CSS("#conv-list .del")))
	waitFor(t, ctx, "the empty list", `document.querySelectorAll('#conv-list li').length === 0 && !!document.getElementById('empty')`)
}

func testToolForms(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)
	step(t, ctx, "opening tools", chromedp.Navigate(s.url+"/tools"), chromedp.WaitVisible(chromedp.CSS(`[data-tool="notes__search_notes"]`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('#tools .card').length`); n != 10 {
		t.Errorf("tools page lists %d tools, want 10", n)
	}
	step(t, ctx, "searching by server", chromedp.SendKeys(chromedp.ID("search"), "notes"))
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#tools .card')].map(c => c.dataset.tool)`); strings.Join(got, " ") != "notes__move_note notes__search_notes" {
		t.Errorf("search 'notes' shows %q, want the notes server's tools", got)
	}
	const form = `form[data-tool="notes__search_notes"] `
	step(t, ctx, "filling the form",
		chromedp.Click(chromedp.CSS(`[data-tool="notes__search_notes"] .try summary`)),
		chromedp.SendKeys(chromedp.ID("f-notes__search_notes-query"), "groceries"),
		chromedp.SetValue(chromedp.ID("f-notes__search_notes-limit"), "3"),
		chromedp.SendKeys(chromedp.ID("f-notes__search_notes-score"), "0.5"),
		chromedp.SetValue(chromedp.ID("f-notes__search_notes-order"), "oldest"),
		chromedp.SendKeys(chromedp.ID("f-notes__search_notes-tags"), "home\nweekly"),
		chromedp.Click(chromedp.CSS(form+`button[type="submit"]`)))
	// The tool has no annotations: the approval policy asks, on the page.
	approveOnPage(t, ctx, form)
	waitFor(t, ctx, "the result", `!!document.querySelector('`+form+`.result-text')`)
	got := eval[string](t, ctx, `document.querySelector('`+form+`.result-text').textContent`)
	if want := `got {"query":"groceries","limit":3,"score":0.5,"order":"oldest","tags":["home","weekly"]}`; got != want {
		t.Errorf("call result = %s, want %s", got, want)
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll('`+form+`label')].map(l => l.textContent).join(' ')`); got != "query * limit score fail order * tags" {
		t.Errorf("labels = %q, want required marks on query and order", got)
	}
	step(t, ctx, "asking for an error", chromedp.SetValue(chromedp.ID("f-notes__search_notes-fail"), "true"),
		chromedp.Click(chromedp.CSS(form+`button[type="submit"]`)))
	approveOnPage(t, ctx, form)
	waitFor(t, ctx, "the error result", `document.querySelector('`+form+`.result').classList.contains('error')`)
	if got := eval[string](t, ctx, `document.querySelector('`+form+`.result .badge').textContent`); got != "isError" {
		t.Errorf("result badge = %q, want isError", got)
	}

	const raw = `form[data-tool="notes__move_note"] `
	step(t, ctx, "writing raw JSON",
		chromedp.Click(chromedp.CSS(`[data-tool="notes__move_note"] .try summary`)),
		chromedp.SetValue(chromedp.ID("raw-notes__move_note"), `{"to": {"folder": "old"}}`),
		chromedp.Click(chromedp.CSS(raw+`button[type="submit"]`)))
	approveOnPage(t, ctx, raw)
	waitFor(t, ctx, "the raw result", `!!document.querySelector('`+raw+`.result-text')`)
	if got := eval[string](t, ctx, `document.querySelector('`+raw+`.result-text').textContent`); got != `got {"to":{"folder":"old"}}` {
		t.Errorf("raw call result = %s", got)
	}
	step(t, ctx, "writing bad JSON", chromedp.SetValue(chromedp.ID("raw-notes__move_note"), `{"to": `),
		chromedp.Click(chromedp.CSS(raw+`button[type="submit"]`)))
	waitFor(t, ctx, "the JSON error", `document.querySelector('`+raw+`.result').textContent.includes('not valid JSON')`)
}

// approveOnPage approves, on the tools page, the call the form under
// the CSS prefix form is waiting on.
func approveOnPage(t *testing.T, ctx context.Context, form string) {
	t.Helper()
	waitFor(t, ctx, "the approval", `!!document.querySelector('`+form+`.approval .approve')`)
	step(t, ctx, "approving the call", chromedp.Click(chromedp.CSS(form+`.approval .approve`)))
}

func testNoModelHint(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{noModel: true})
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"))
	waitFor(t, ctx, "the hint", `!document.getElementById('hint').hidden`)
	if got := eval[string](t, ctx, `document.getElementById('hint').textContent`); !strings.Contains(got, "no model is configured") {
		t.Errorf("hint = %q, want the server's no-model hint", got)
	}
}

// testConfigNotice: a refused edit of the config file shows on every page,
// each problem as text, and goes by itself once an edit is applied.
func testConfigNotice(t *testing.T, b context.Context) {
	var problems atomic.Pointer[[]string]
	refused := []string{"mcpServers.files: set either command or url, not both", "<b>models.x</b>: unknown provider"}
	problems.Store(&refused)
	s := newStack(t, stackOptions{configProblems: func() []string { return *problems.Load() }})
	ctx := tab(t, b)
	for _, page := range []string{"/", "/servers"} {
		step(t, ctx, "opening "+page, chromedp.Navigate(s.url+page))
		waitFor(t, ctx, "the config notice on "+page, `!document.getElementById('config-notice').hidden`)
		items := eval[[]string](t, ctx, `[...document.querySelectorAll('#config-notice li')].map(e => e.textContent)`)
		if diff := cmp.Diff(refused, items); diff != "" {
			t.Errorf("notice on %s mismatch (-want +got):\n%s", page, diff)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('#config-notice b').length`); n != 0 {
			t.Errorf("a problem's text became markup on %s", page)
		}
	}
	var none []string
	problems.Store(&none)
	waitFor(t, ctx, "the notice to go after a valid edit", `document.getElementById('config-notice').hidden`)
}

func testAPIKey(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{keys: true})
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"))
	waitFor(t, ctx, "the key request", `!document.getElementById('notice').hidden && document.getElementById('key-box').open`)
	// Saving the key reloads the page; RunResponse waits for that load.
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(rctx, chromedp.SendKeys(chromedp.ID("key-input"), s.key+"\n")); err != nil {
		t.Fatalf("saving the key: %v", err)
	}
	waitFor(t, ctx, "the conversations", `document.getElementById('notice').hidden && localStorage.getItem('switchboard.apiKey') !== null`)
	step(t, ctx, "sending", chromedp.WaitVisible(chromedp.ID("input")), chromedp.SendKeys(chromedp.ID("input"), "write keyed.txt\n"))
	waitFor(t, ctx, "the approval card", `!!document.querySelector('.approval .approve')`)
	step(t, ctx, "approving for the conversation", chromedp.Click(chromedp.CSS(".approval .approve-conv")))
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant')].some(e => e.textContent.includes('no errors'))`)
	if got := eval[string](t, ctx, `document.querySelector('.approval [role=status]').textContent`); got != "approved (conversation) by alice" {
		t.Errorf("approval state = %q, want approved (conversation) by alice", got)
	}
}

// testRendering runs the page's markdown renderer and SSE parser
// on hostile and awkward input inside the browser.
func testRendering(t *testing.T, b context.Context) {
	s := newStack(t, stackOptions{})
	ctx := tab(t, b)
	step(t, ctx, "opening a page", chromedp.Navigate(s.url+"/audit"), chromedp.WaitReady(chromedp.ID("main")))

	t.Run("markdown", func(t *testing.T) {
		tests := []struct {
			name, src, want string
		}{
			{
				"html stays text", `<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>`,
				`<p>&lt;img src=x onerror="window.pwned=1"&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;</p>`,
			},
			{"javascript link", `[click](javascript:window.pwned=1)`, `<p>[click](javascript:window.pwned=1)</p>`},
			{
				"safe link", `see [docs](https://example.com/a?b=1)`,
				`<p>see <a href="https://example.com/a?b=1" rel="noopener noreferrer" target="_blank">docs</a></p>`,
			},
			{"code block", "```go\nif a < b {}\n```", `<pre><code class="lang-go">if a &lt; b {}</code></pre>`},
			{"inline and bold", "run `ls` **now**", `<p>run <code>ls</code> <strong>now</strong></p>`},
			{"lists", "- a\n- b\n1. c", `<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>`},
			{"unclosed fence", "```\n<b>x", `<pre><code>&lt;b&gt;x</code></pre>`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := eval[string](t, ctx, `(() => { const d = document.createElement('div'); d.append(SB.markdown(`+jsString(tt.src)+`)); return d.innerHTML; })()`)
				if got != tt.want {
					t.Errorf("markdown(%q)\n got %s\nwant %s", tt.src, got, tt.want)
				}
			})
		}
		if pwned := eval[bool](t, ctx, `window.pwned === 1`); pwned {
			t.Error("rendered markdown ran script")
		}
	})

	t.Run("sse", func(t *testing.T) {
		// Every split of the stream into two chunks must give the same events.
		const stream = "event: run\r\ndata: {\"runId\":\"r\"}\r\n\r\n: keep-alive\n\nevent: text\ndata: a\ndata: b\n\ndata:c\r\r"
		got := eval[[]string](t, ctx, `(() => {
			const s = `+jsString(stream)+`;
			const out = new Set();
			for (let i = 0; i <= s.length; i++) {
				const evs = [];
				const feed = SB.sseParser((n, d) => evs.push(n + "=" + d));
				feed(s.slice(0, i)); feed(s.slice(i));
				out.add(JSON.stringify(evs));
			}
			return [...out];
		})()`)
		want := `["run={\"runId\":\"r\"}","text=a\nb","message=c"]`
		if len(got) != 1 || got[0] != want {
			t.Errorf("events over every split = %q, want only %q", got, want)
		}
	})
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(s) + "`"
}
