package web_test

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// everythingStack is Switchboard serving the web UI with the reference
// server-everything connected over stdio and a vision model reached
// through the OpenAI adapter at a fake Chat Completions server.
type everythingStack struct {
	url   string
	model *visionModel
}

func newEverythingStack(t *testing.T) *everythingStack {
	t.Helper()
	ctx := context.Background()
	db := testStore(t)
	logger := warnLogger(t)
	pool := everythingPool(t, mcphost.Options{Logger: logger})
	pool.Start(ctx)
	if len(pool.Tools()) == 0 {
		t.Fatalf("server-everything offered no tools: %+v", pool.Status())
	}
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "everything"}, pool.Tools())

	s := &everythingStack{model: &visionModel{}}
	ms := httptest.NewServer(s.model)
	t.Cleanup(ms.Close)
	provider := openai.New(&openai.Options{BaseURL: ms.URL + "/v1", Model: "gpt-4o"})
	g := gate.New(&gate.Options{Audit: db})
	// Each model name reaches the fake under its own id, so the test sees
	// which model the person picked.
	rt := agent.New(func(name string) (agent.Model, error) {
		if name == "" {
			name = "default"
		}
		m := agent.Model{Name: name, ID: "id-" + name, Provider: provider, ToolMode: agent.ToolModeNative}
		switch name {
		case "small":
			m.ContextWindow = 2 // no room for more than the new message
		case "medium":
			m.ContextWindow = 80 // 120 characters: room for a summary
		}
		return m, nil
	}, reg, g, &agent.Options{
		Assistant: store.Agent{Router: string(agent.RouterOff)},
		Agents:    db, History: db, Approvals: db,
	})
	srv := server.New(server.StoresOf(db), rt, reg, g, &server.Options{
		RunLog:          db,
		Changes:         db,
		Config:          newRuntimeConfig(),
		Models:          func() []string { return []string{"default", "medium", "small", "vision"} },
		AllowAnonymous:  true,
		KeepRunsOnLeave: true,
		Logger:          logger,
		Web:             web.Handler(&web.Options{Version: "test"}),
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

// TestBrowserImages: an image a tool of server-everything returns reaches
// the vision model in the OpenAI format (a user message with image_url
// parts after the tool message), and an image the person attaches in the
// chat goes to the model with their message and stays in the conversation.
func TestBrowserImages(t *testing.T) {
	b := browser(t)
	s := newEverythingStack(t)
	ctx := tab(t, b)

	t.Run("tool result image", func(t *testing.T) {
		step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("input")))
		step(t, ctx, "asking for the image", chromedp.SendKeys(chromedp.ID("input"), "show me the tiny image"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
		answer := eval[string](t, ctx, `[...document.querySelectorAll('.msg.assistant')].map(e => e.textContent).join('\n')`)
		// The tiny image is a PNG; the model read its bytes from the
		// data: URL it was sent.
		if !strings.Contains(answer, "I see a image/png of ") {
			t.Errorf("answer = %q, want the model to describe the PNG it was sent", answer)
		}
		reqs := s.model.requests()
		if len(reqs) != 2 {
			t.Fatalf("the model got %d requests, want 2", len(reqs))
		}
		msgs, _ := mustJSON(t, reqs[1])["messages"].([]any)
		if len(msgs) < 2 {
			t.Fatalf("second request has messages %v", msgs)
		}
		tool, user := msgs[len(msgs)-2].(map[string]any), msgs[len(msgs)-1].(map[string]any)
		if tool["role"] != "tool" || tool["tool_call_id"] != "call_img" || !strings.Contains(tool["content"].(string), "sent in the next user message") {
			t.Errorf("tool message = %v, want the call's text naming the image", tool)
		}
		parts, _ := user["content"].([]any)
		if user["role"] != "user" || len(parts) != 2 {
			t.Fatalf("message after the tool result = %v, want a user message with a text and an image part", user)
		}
		img := parts[1].(map[string]any)
		u, _ := img["image_url"].(map[string]any)["url"].(string)
		if img["type"] != "image_url" || !strings.HasPrefix(u, "data:image/png;base64,iVBORw0KGgo") {
			t.Errorf("image part = %v, want server-everything's PNG as a data: URL", img)
		}
	})

	t.Run("attached image", func(t *testing.T) {
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
		file := filepath.Join(t.TempDir(), "dot.png")
		if err := os.WriteFile(file, png, 0o600); err != nil {
			t.Fatal(err)
		}
		before := len(s.model.requests())
		step(t, ctx, "starting a new chat", chromedp.Click(chromedp.ID("new-conv")))
		step(t, ctx, "attaching an image", chromedp.SetUploadFiles(chromedp.ID("attach"), []string{file}))
		waitFor(t, ctx, "the attachment preview", `!!document.querySelector('#attachments .attachment img')`)
		step(t, ctx, "sending", chromedp.SendKeys(chromedp.ID("input"), "what is this?"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the answer", `!!document.querySelector('.msg.assistant:not(.streaming)')`)
		want := "I see a image/png of 33 bytes."
		if got := eval[string](t, ctx, `[...document.querySelectorAll('.msg.assistant')].pop().textContent`); !strings.Contains(got, want) {
			t.Errorf("answer = %q, want %q", got, want)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('#attachments .attachment').length`); n != 0 {
			t.Errorf("%d attachments left in the composer after sending, want 0", n)
		}
		reqs := s.model.requests()
		if len(reqs) != before+1 {
			t.Fatalf("the model got %d new requests, want 1", len(reqs)-before)
		}
		msgs, _ := mustJSON(t, reqs[len(reqs)-1])["messages"].([]any)
		wantMsg := map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is this?"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}},
		}}
		if diff := cmp.Diff(wantMsg, msgs[len(msgs)-1]); diff != "" {
			t.Errorf("user message mismatch (-want +got):\n%s", diff)
		}
		// Reopened, the conversation shows the image with the message.
		step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
		step(t, ctx, "opening the conversation", chromedp.Click(chromedp.CSS("#conv-list li:first-child .open")))
		waitFor(t, ctx, "the stored image", `!!document.querySelector('.msg.user img.attached')`)
	})

	t.Run("link, export and model picker", func(t *testing.T) {
		// The reopened conversation has an address; opened in a fresh
		// tab, it shows the conversation.
		link := eval[string](t, ctx, `document.getElementById('conv-link').href`)
		if !strings.Contains(link, "/?c=") || eval[string](t, ctx, `location.href`) != link {
			t.Fatalf("conversation link = %q, page at %q; want /?c=<id> for both", link, eval[string](t, ctx, `location.href`))
		}
		other := tab(t, b)
		step(t, other, "opening the link", chromedp.Navigate(link))
		waitFor(t, other, "the linked conversation", `!!document.querySelector('.msg.user img.attached') && document.querySelector('.msg.user').textContent.includes('what is this?')`)
		// Export goes through the page's own fetch with the page's key.
		md, err := chromedp.Run(other, chromedp.Evaluate[string](`(async () => { const id = new URLSearchParams(location.search).get('c');
			const r = await fetch('/api/v1/conversations/' + id + '/export?format=md', { headers: SB.headers() }); return r.headers.get('Content-Disposition') + '\n' + await r.text(); })()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("fetching the export: %v", err)
		}
		if !strings.Contains(md, "attachment;") || !strings.Contains(md, "## User\n\nwhat is this?") || !strings.Contains(md, "*[image: image/png, 33 bytes]*") {
			t.Errorf("markdown export = %q", md)
		}
		step(t, other, "exporting JSON", chromedp.Click(chromedp.ID("export-json")))
		// A link to a conversation that is not there says so.
		step(t, other, "opening a dead link", chromedp.Navigate(s.url+"/?c=nosuch"))
		waitFor(t, other, "the notice", `document.body.innerText.includes('not found') || document.body.innerText.includes('No conversation')`)

		// The model picker lists the configured models; the pick reaches
		// the model request.
		step(t, ctx, "starting a new chat", chromedp.Click(chromedp.ID("new-conv")))
		if got := eval[string](t, ctx, `location.search`); got != "" {
			t.Errorf("a new chat keeps the address %q, want /", got)
		}
		opts := eval[string](t, ctx, `[...document.querySelectorAll('#model option')].map(o => o.value).join(',')`)
		if opts != ",default,medium,small,vision" {
			t.Errorf("model options = %q, want the agent's model, default and vision", opts)
		}
		step(t, ctx, "picking vision", chromedp.SetValue(chromedp.ID("model"), "vision"))
		before := len(s.model.requests())
		step(t, ctx, "sending", chromedp.SendKeys(chromedp.ID("input"), "hello"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant:not(.streaming)')].some(e => e.textContent.includes('no image'))`)
		reqs := s.model.requests()
		if len(reqs) != before+1 || mustJSON(t, reqs[len(reqs)-1])["model"] != "id-vision" {
			t.Errorf("the model request after picking vision: %d new, last %s", len(reqs)-before, reqs[len(reqs)-1])
		}

		// A model with a window too small even for a summary gets only
		// the new message, and the person is told what was summarised
		// and left out.
		step(t, ctx, "picking small", chromedp.SetValue(chromedp.ID("model"), "small"))
		step(t, ctx, "sending again", chromedp.SendKeys(chromedp.ID("input"), "again"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the context note", `[...document.querySelectorAll('.note.context')].some(e => e.textContent.includes('older message(s) were left out'))`)
		waitFor(t, ctx, "the second answer", `document.querySelectorAll('.msg.assistant:not(.streaming)').length === 2`)
		reqs = s.model.requests()
		msgs, _ := mustJSON(t, reqs[len(reqs)-1])["messages"].([]any)
		if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "again" {
			t.Errorf("the small model got %v, want the system prompt and the new message only", msgs)
		}
	})

	t.Run("long conversation summarised", func(t *testing.T) {
		step(t, ctx, "starting a new chat", chromedp.Click(chromedp.ID("new-conv")), chromedp.SetValue(chromedp.ID("model"), ""))
		first := "remember the word pelican, " + strings.Repeat("and more words ", 6)
		step(t, ctx, "sending a long message", chromedp.SendKeys(chromedp.ID("input"), first), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the first answer", `document.querySelectorAll('.msg.assistant:not(.streaming)').length === 1`)
		// The medium model's window cannot hold the first turn and the
		// question: the model summarises the first turn, visibly, and
		// answers from the summary.
		step(t, ctx, "picking medium", chromedp.SetValue(chromedp.ID("model"), "medium"))
		step(t, ctx, "asking", chromedp.SendKeys(chromedp.ID("input"), "what word?"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant:not(.streaming)')].some(e => e.textContent.includes('The word was pelican.'))`)
		if got := eval[string](t, ctx, `(document.querySelector('.note.context') || {}).textContent || ''`); !strings.Contains(got, "the model summarised it") {
			t.Errorf("context note = %q, want it to say the model summarised the conversation", got)
		}
		sum := `document.querySelector('details.summary')`
		if open := eval[bool](t, ctx, sum+`.open`); open {
			t.Errorf("the summary is expanded, want it collapsed")
		}
		step(t, ctx, "expanding the summary", chromedp.Click(chromedp.CSS("details.summary > summary")))
		if got := eval[string](t, ctx, sum+`.textContent`); !strings.Contains(got, "Earlier the user wrote: remember the word pelican") {
			t.Errorf("summary = %q", got)
		}
		// The last model request carried the summary, not the first turn.
		reqs := s.model.requests()
		body := string(reqs[len(reqs)-1])
		if !strings.Contains(body, "[Summary of the earlier conversation]") || strings.Contains(body, "and more words") {
			t.Errorf("the answering request = %s, want the summary in place of the first turn", body)
		}
		// Reopened, the conversation shows every message and the summary, collapsed.
		step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
		waitFor(t, ctx, "the stored summary", `!!document.querySelector('details.summary') && !document.querySelector('details.summary').open && document.querySelector('details.summary summary').textContent.includes('messages 1–2')`)
		if n := eval[int](t, ctx, `document.querySelectorAll('.msg.user').length`); n != 2 {
			t.Errorf("reopened conversation shows %d user messages, want both", n)
		}
	})
}
