package web_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// elicitStack is Switchboard serving the web UI with server-everything
// over stdio, its elicitation requests put to the person through the
// agent runtime (as app wires them), a model faked at the OpenAI wire
// (elicitModel) and two users, alice and mallory, each with a key.
type elicitStack struct {
	url        string
	model      *elicitModel
	alice, mal string
}

func newElicitStack(t *testing.T) *elicitStack {
	t.Helper()
	ctx := context.Background()
	db := testStore(t)
	s := &elicitStack{model: &elicitModel{}}
	for _, name := range []string{"alice", "mallory"} {
		key, hash := server.NewAPIKey()
		if _, err := db.CreateUser(ctx, store.User{Name: name, KeyHash: hash, Permissions: []string{"*"}, Role: store.RoleUser}); err != nil {
			t.Fatal(err)
		}
		if name == "alice" {
			s.alice = key
		} else {
			s.mal = key
		}
	}
	logger := warnLogger(t)
	var rt *agent.Runtime // set below, before any tool runs
	pool := everythingPool(t, mcphost.Options{
		Logger: logger,
		Elicitation: func(ctx context.Context, _ string, req *tools.ElicitRequest) (*tools.ElicitResult, error) {
			return rt.Elicit(ctx, req)
		},
		OnElicitationComplete: func(server, id string) { rt.ElicitationComplete(context.Background(), server, id) },
	})
	reg := tools.NewRegistry(nil)
	// Every call runs without asking: only the server's question is put
	// to the person.
	g := gate.New(&gate.Options{Audit: db, Policy: gate.Policy{Mode: gate.ModeAllowAll}})
	ms := httptest.NewServer(s.model)
	t.Cleanup(ms.Close)
	provider := openai.New(&openai.Options{BaseURL: ms.URL + "/v1", Model: "gpt-4o"})
	rt = agent.New(func(string) (agent.Model, error) {
		return agent.Model{Name: "default", ID: "fake", Provider: provider, ToolMode: agent.ToolModeNative}, nil
	}, reg, g, &agent.Options{
		Assistant: store.Agent{Router: string(agent.RouterOff)},
		Agents:    db, History: db, Approvals: db,
	})
	pool.Start(ctx)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "everything"}, pool.Tools())
	srv := server.New(server.StoresOf(db), rt, reg, g, &server.Options{
		RunLog: db, Changes: db, Config: newRuntimeConfig(),
		Models: func() []string { return []string{"default"} }, KeepRunsOnLeave: true,
		Logger: logger, Web: web.Handler(&web.Options{Version: "test"}),
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

// ask starts a new chat in the tab as alice and sends text.
func (s *elicitStack) ask(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	step(t, ctx, "opening the chat", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("input")))
	eval[bool](t, ctx, `localStorage.setItem('switchboard.apiKey', `+jsString(s.alice)+`), true`)
	step(t, ctx, "reloading with the key", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
	step(t, ctx, "sending "+text, chromedp.SendKeys(chromedp.ID("input"), text), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
}

// toolResult is the last tool result the model was sent.
func (s *elicitStack) toolResult(t *testing.T) string {
	t.Helper()
	reqs := s.model.requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	var req oaRequest
	if err := json.Unmarshal(reqs[len(reqs)-1], &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "tool" {
		t.Fatalf("the model's last request ends with a %s message, want the tool result", last.Role)
	}
	return last.parts()[0].Text
}

// TestBrowserElicitation: server-everything's trigger-elicitation-request
// asks for a form; the card renders it from the requested schema, the
// person fills it in, and the values reach the server, which echoes them
// in the tool result the model is sent. Decline and cancel reach the
// server as distinct answers. Values that break the schema, and answers by
// another user, are refused. URL mode shows the host and opens the page
// only on a click.
func TestBrowserElicitation(t *testing.T) {
	b := browser(t)
	s := newElicitStack(t)

	t.Run("form accepted", func(t *testing.T) {
		ctx := tab(t, b)
		s.ask(t, ctx, "fill the form")
		waitFor(t, ctx, "the form", `!!document.querySelector('.elicitation form')`)
		// Labels come from titles, required ones are marked, help from
		// descriptions, defaults are filled.
		labels := eval[string](t, ctx, `[...document.querySelectorAll('.elicitation label')].map(l => l.textContent).join('|')`)
		for _, want := range []string{"String *", "Boolean", "Integer", "Titled Single Select Enum", "Legacy Titled Single Select Enum", "Superman", "Tuna"} {
			if !strings.Contains(labels, want) && !strings.Contains(eval[string](t, ctx, `document.querySelector('.elicitation').textContent`), want) {
				t.Errorf("the form does not show %q; labels: %s", want, labels)
			}
		}
		if got := eval[string](t, ctx, `document.querySelector('.elicitation [name=firstLine]').value`); got != "It was a dark and stormy night." {
			t.Errorf("firstLine = %q, want its default", got)
		}
		if got := eval[string](t, ctx, `document.querySelector('.elicitation [name=integer]').value`); got != "42" {
			t.Errorf("integer = %q, want its default 42", got)
		}
		if !eval[bool](t, ctx, `document.querySelector('.elicitation').textContent.includes('Your full, legal name')`) {
			t.Error("the description of name is not shown as help")
		}
		// Submitting without the required name is stopped by the form.
		step(t, ctx, "submitting empty", chromedp.Click(chromedp.CSS(".elicitation button.accept")))
		if eval[bool](t, ctx, `document.querySelector('.elicitation').classList.contains('resolved')`) {
			t.Fatal("the form was sent without its required field")
		}
		// The server refuses values that break the schema, and another
		// user's answer, and the question stays open.
		id := eval[string](t, ctx, `document.querySelector('.elicitation').dataset.approval`)
		for _, c := range []struct{ key, body, want string }{
			{s.alice, `{"decision":"accept","content":{"name":7}}`, "422 want text"},
			{s.alice, `{"decision":"accept","content":{"name":"x","isAdmin":true}}`, `422 "isAdmin" is not a field`},
			{s.alice, `{"decision":"accept","content":{"name":"x","untitledSingleSelectEnum":"Gunther"}}`, "422 Gunther is not one of the choices"},
			{s.alice, `{"decision":"approve_conversation"}`, "400 "},
			{s.mal, `{"decision":"accept","content":{"name":"mallory"}}`, "404 "},
			{s.mal, `{"decision":"cancel"}`, "404 "},
		} {
			got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => { const r = await fetch('/api/v1/approvals/`+id+`', {method: 'POST',
				headers: {'Authorization': 'Bearer ' + `+jsString(c.key)+`, 'Content-Type': 'application/json'}, body: `+jsString(c.body)+`});
				const j = await r.json(); return r.status + ' ' + ((j.error && j.error.message) || ''); })()`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("answering %s: %v", c.body, err)
			}
			status, msg, _ := strings.Cut(c.want, " ")
			if !strings.HasPrefix(got, status+" ") || !strings.Contains(got, msg) {
				t.Errorf("answering %s = %q, want %s containing %q", c.body, got, status, msg)
			}
		}
		step(t, ctx, "filling the form",
			chromedp.SendKeys(chromedp.CSS(".elicitation [name=name]"), "Ada Lovelace"),
			chromedp.SendKeys(chromedp.CSS(".elicitation [name=email]"), "ada@example.com"),
			chromedp.Click(chromedp.CSS(".elicitation [name=check]")),
			chromedp.SetValue(chromedp.CSS(".elicitation [name=titledSingleSelectEnum]"), "hero-3"),
			chromedp.Click(chromedp.CSS(".elicitation button.accept")))
		waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
		res := s.toolResult(t)
		for _, want := range []string{"User provided the requested information", "- Name: Ada Lovelace", "- Email: ada@example.com", "- Agreed to terms: true", "- Favorite Integer: 42", `"titledSingleSelectEnum": "hero-3"`, `"untitledMultipleSelectEnum": [`} {
			if !strings.Contains(res, want) {
				t.Errorf("tool result the model got lacks %q:\n%s", want, res)
			}
		}
		if got := eval[string](t, ctx, `document.querySelector('.elicitation [role=status]').textContent`); !strings.HasPrefix(got, "Sent") {
			t.Errorf("card state = %q, want Sent", got)
		}
	})

	for _, c := range []struct{ button, want string }{
		{"decline", "User declined to provide the requested information"},
		{"cancel", "User cancelled the elicitation dialog"},
	} {
		t.Run(c.button, func(t *testing.T) {
			ctx := tab(t, b)
			s.ask(t, ctx, "fill the form")
			waitFor(t, ctx, "the form", `!!document.querySelector('.elicitation form')`)
			step(t, ctx, "answering "+c.button, chromedp.Click(chromedp.CSS(".elicitation button."+c.button)))
			waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
			if res := s.toolResult(t); !strings.Contains(res, c.want) || !strings.Contains(res, `"action": "`+c.button+`"`) {
				t.Errorf("tool result = %q, want %q", res, c.want)
			}
		})
	}

	t.Run("url", func(t *testing.T) {
		ctx := tab(t, b)
		s.ask(t, ctx, "open the page")
		waitFor(t, ctx, "the URL card", `!!document.querySelector('.elicitation .open-url')`)
		if got := eval[string](t, ctx, `document.querySelector('.elicitation .host').textContent`); got != "login.example.com" {
			t.Errorf("host shown = %q, want login.example.com", got)
		}
		// Nothing was opened for the person; Done waits for the click.
		eval[bool](t, ctx, `window.opened = []; window.open = (u) => { window.opened.push(u); return null; }, true`)
		if !eval[bool](t, ctx, `document.querySelector('.elicitation button.accept').disabled`) {
			t.Error("Done is enabled before the page was opened")
		}
		step(t, ctx, "opening the page", chromedp.Click(chromedp.CSS(".elicitation .open-url")))
		if got := eval[string](t, ctx, `window.opened.join(',')`); got != "https://login.example.com/authorize?state=1" {
			t.Errorf("opened %q", got)
		}
		step(t, ctx, "done", chromedp.Click(chromedp.CSS(".elicitation button.accept")))
		waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)
		if res := s.toolResult(t); !strings.Contains(res, "User completed the URL elicitation flow") {
			t.Errorf("tool result = %q", res)
		}
	})
}
