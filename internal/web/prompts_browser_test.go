package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// poolOffers gives the server the pool's prompts and resources, as the
// app does (internal/app/gateway_features.go).
type poolOffers struct{ *mcphost.Pool }

func (p poolOffers) FeatureServers() []string {
	var names []string
	for _, s := range p.Status() {
		names = append(names, s.Name)
	}
	return names
}

// echoModel is a fake OpenAI Chat Completions server that answers only
// from what it is sent: "You sent N characters." for the last user
// message's text parts; bodies keeps every request for the test.
type echoModel struct {
	mu     sync.Mutex
	bodies []oaRequest // guarded by mu
}

func (m *echoModel) last() oaRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.bodies) == 0 {
		return oaRequest{}
	}
	return m.bodies[len(m.bodies)-1]
}

// lastUserText is the text of the last user message of req.
func lastUserText(req oaRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			var b strings.Builder
			for _, p := range req.Messages[i].parts() {
				b.WriteString(p.Text)
			}
			return b.String()
		}
	}
	return ""
}

func (m *echoModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req oaRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Stream {
		http.Error(w, "want a streamed chat completion request", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, req)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	text := fmt.Sprintf("You sent %d characters.", len(lastUserText(req)))
	b, _ := json.Marshal(map[string]any{
		"id": "c", "object": "chat.completion.chunk", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
	})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// newPromptsStack serves the web UI with server-everything's prompts and
// resources and the echo model.
func newPromptsStack(t *testing.T) (string, *echoModel) {
	t.Helper()
	ctx := context.Background()
	db := testStore(t)
	logger := warnLogger(t)
	pool := everythingPool(t, mcphost.Options{Logger: logger})
	pool.Start(ctx)
	reg := tools.NewRegistry(nil)
	model := &echoModel{}
	ms := httptest.NewServer(model)
	t.Cleanup(ms.Close)
	provider := openai.New(&openai.Options{BaseURL: ms.URL + "/v1", Model: "gpt-4o"})
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(string) (agent.Model, error) {
		return agent.Model{Name: "default", ID: "default", Provider: provider, ToolMode: agent.ToolModeNative}, nil
	}, reg, g, &agent.Options{Assistant: store.Agent{Router: string(agent.RouterOff)}, Agents: db, History: db, Approvals: db})
	srv := server.New(server.StoresOf(db), rt, reg, g, &server.Options{
		RunLog: db, Changes: db, AllowAnonymous: true, Logger: logger,
		Features: poolOffers{pool},
		Web:      web.Handler(&web.Options{Version: "test"}),
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL, model
}

// TestBrowserPromptsAndResources: with the real server-everything, a
// slash command runs a prompt with an argument typed in its form, and the
// model is sent the prompt's text with the value; argument values are
// completed by the server; a resource attached from the picker is read
// and its contents carried in the model request, shown as a chip and
// kept in the conversation; "@" lists matching resources.
func TestBrowserPromptsAndResources(t *testing.T) {
	b := browser(t)
	url, model := newPromptsStack(t)
	ctx := tab(t, b)
	step(t, ctx, "opening the chat", chromedp.Navigate(url+"/"), chromedp.WaitVisible(chromedp.ID("input")))

	t.Run("slash command", func(t *testing.T) {
		step(t, ctx, "typing /args", chromedp.SendKeys(chromedp.ID("input"), "/args"))
		waitFor(t, ctx, "only the matching prompt in the list", `document.querySelectorAll('#suggest .option').length === 1 && !!document.querySelector('#suggest .option[data-value="everything__args-prompt"]')`)
		step(t, ctx, "choosing it", chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the arguments form", `!!document.getElementById('arg-city')`)
		if got := eval[string](t, ctx, `document.querySelector('label[for=arg-city]').textContent`); !strings.HasSuffix(got, "*") {
			t.Errorf("label of the required city = %q, want it marked with *", got)
		}
		step(t, ctx, "filling the city", chromedp.SendKeys(chromedp.ID("arg-city"), "Lisbon"))
		step(t, ctx, "running", chromedp.Click(`#prompt-form button.run`))
		waitFor(t, ctx, "the answer", `document.getElementById('status').textContent.startsWith('Done')`)
		if got := lastUserText(model.last()); got != "What's weather in Lisbon?" {
			t.Errorf("the model was sent %q, want the prompt's text with the city", got)
		}
		step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
		waitFor(t, ctx, "the stored prompt message", `[...document.querySelectorAll('.msg.user')].some(e => e.textContent.includes("What's weather in Lisbon?"))`)
	})

	t.Run("completion", func(t *testing.T) {
		step(t, ctx, "typing /completable", chromedp.SendKeys(chromedp.ID("input"), "/completable"))
		waitFor(t, ctx, "only the matching prompt in the list", `document.querySelectorAll('#suggest .option').length === 1 && !!document.querySelector('#suggest .option[data-value="everything__completable-prompt"]')`)
		step(t, ctx, "choosing it", chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the arguments form", `!!document.getElementById('arg-department')`)
		step(t, ctx, "typing Sa", chromedp.SendKeys(chromedp.ID("arg-department"), "Sa"))
		waitFor(t, ctx, "Sales offered", `[...document.querySelectorAll('#arg-department-values option')].map(o => o.value).join() === 'Sales'`)
		step(t, ctx, "choosing Sales", chromedp.SetValue(chromedp.ID("arg-department"), "Sales"), chromedp.SendKeys(chromedp.ID("arg-name"), "F"))
		waitFor(t, ctx, "Frank offered, narrowed by the department", `[...document.querySelectorAll('#arg-name-values option')].map(o => o.value).join() === 'Frank'`)
		step(t, ctx, "cancelling", chromedp.Click(`#prompt-form button.secondary`))
		waitFor(t, ctx, "the form closed", `document.getElementById('prompt-form').hidden`)
	})

	t.Run("resource from the picker", func(t *testing.T) {
		const uri = "switchboard://everything/demo://resource/static/document/architecture.md"
		step(t, ctx, "opening the picker", chromedp.Click(chromedp.ID("pick-resource")))
		waitFor(t, ctx, "the resource in the picker", `!!document.querySelector('#suggest .option[data-value="`+uri+`"]')`)
		step(t, ctx, "choosing it", chromedp.Click(`#suggest .option[data-value="`+uri+`"]`))
		waitFor(t, ctx, "the chip", `!!document.querySelector('#resource-chips .chip')`)
		step(t, ctx, "sending", chromedp.SendKeys(chromedp.ID("input"), "summarise this"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the answer", `document.getElementById('status').textContent.startsWith('Done')`)
		got := lastUserText(model.last())
		if !strings.HasPrefix(got, "summarise this") || !strings.Contains(got, "Attached resource "+uri) || !strings.Contains(got, "# Everything Server – Architecture") {
			t.Errorf("the model was sent %q, want the message and the resource's contents", got[:min(len(got), 300)])
		}
		step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
		waitFor(t, ctx, "the stored chip", `[...document.querySelectorAll('.msg.user .chip.resource')].some(e => e.title === "`+uri+`")`)
		if txt := eval[string](t, ctx, `[...document.querySelectorAll('.msg.user')].pop().querySelector('span').textContent`); txt != "summarise this" {
			t.Errorf("stored message shows %q, want the typed text with the resource as a chip", txt)
		}
	})

	t.Run("at completion", func(t *testing.T) {
		step(t, ctx, "typing @instruc", chromedp.SendKeys(chromedp.ID("input"), "look at @instruc"))
		waitFor(t, ctx, "only the matching resource", `document.querySelectorAll('#suggest .option').length === 1 && !!document.querySelector('#suggest .option[data-value="switchboard://everything/demo://resource/static/document/instructions.md"]')`)
		step(t, ctx, "choosing it", chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
		waitFor(t, ctx, "the chip", `!!document.querySelector('#resource-chips .chip')`)
		// (chromedp's Enter also types a newline the page prevented.)
		if v := eval[string](t, ctx, `document.getElementById('input').value.trim()`); v != "look at" {
			t.Errorf("composer = %q, want the @text replaced by the chip", v)
		}
	})
}
