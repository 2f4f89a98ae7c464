package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// uploadModel is a fake OpenAI Chat Completions server that answers only
// from the request it is shown:
//   - a last user message naming an upload id (up_...) gets a call of the
//     offered tool whose name ends in "read_upload", with that id;
//   - a last tool message gets "The file says: " and the tool's text;
//   - anything else gets "No file.".
type uploadModel struct {
	mu     sync.Mutex
	bodies [][]byte // guarded by mu
}

func (m *uploadModel) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

var uploadIDRE = regexp.MustCompile(`upload (up_[A-Za-z0-9]+)`)

func (m *uploadModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil || !req.Stream || len(req.Messages) == 0 {
		http.Error(w, "want a streamed chat completion request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		choice := map[string]any{"index": 0, "delta": delta, "finish_reason": finish}
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{choice}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	tool := ""
	for _, t := range req.Tools {
		if strings.HasSuffix(t.Function.Name, "read_upload") {
			tool = t.Function.Name
		}
	}
	last := req.Messages[len(req.Messages)-1]
	var text strings.Builder
	for _, p := range last.parts() {
		text.WriteString(p.Text)
	}
	id := uploadIDRE.FindStringSubmatch(text.String())
	switch {
	case last.Role == "tool":
		send(map[string]any{"role": "assistant", "content": "The file says: " + text.String()}, "stop")
	case last.Role == "user" && id != nil && tool != "":
		args, _ := json.Marshal(map[string]string{"id": id[1]})
		call := map[string]any{"index": 0, "id": "call_up", "type": "function", "function": map[string]any{"name": tool, "arguments": string(args)}}
		send(map[string]any{"role": "assistant", "tool_calls": []any{call}}, "tool_calls")
	default:
		send(map[string]any{"role": "assistant", "content": "No file."}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// newUploadStack is Switchboard serving the web UI, with the built-in
// read_upload reading the store's uploads, uploads of at most maxBytes,
// and the fake uploadModel behind the OpenAI adapter.
func newUploadStack(t *testing.T, maxBytes int64) (url string, model *uploadModel) {
	t.Helper()
	db := testStore(t)
	logger := warnLogger(t)
	var others []string
	for _, n := range builtin.Names() {
		if n != "read_upload" {
			others = append(others, n)
		}
	}
	bt, err := builtin.New(&builtin.Options{Roots: []string{t.TempDir()}, Uploads: db, Disabled: others})
	if err != nil {
		t.Fatalf("building read_upload: %v", err)
	}
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, bt)

	model = &uploadModel{}
	ms := httptest.NewServer(model)
	t.Cleanup(ms.Close)
	provider := openai.New(&openai.Options{BaseURL: ms.URL + "/v1", Model: "gpt-4o"})
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(name string) (agent.Model, error) {
		return agent.Model{Name: "default", ID: "id-default", Provider: provider, ToolMode: agent.ToolModeNative}, nil
	}, reg, g, &agent.Options{
		Assistant: store.Agent{Router: string(agent.RouterOff)},
		Agents:    db, History: db, Approvals: db,
	})
	srv := server.New(server.StoresOf(db), rt, reg, g, &server.Options{
		RunLog:         db,
		Changes:        db,
		Config:         newRuntimeConfig(),
		AllowAnonymous: true,
		UploadMaxBytes: maxBytes,
		Logger:         logger,
		Web:            web.Handler(&web.Options{Version: "test"}),
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL, model
}

// TestBrowserUploads: a person uploads a CSV through the chat's file
// input (the page has no conversation yet, so one is made), sees its
// chip, sends a message; the model calls read_upload with the id it was
// told and the tool result it gets back holds the CSV. After a reload the
// message still shows the upload. A file over the limit, and one of a
// type the server refuses, show the server's reason and no chip.
func TestBrowserUploads(t *testing.T) {
	b := browser(t)
	url, model := newUploadStack(t, 64)
	ctx := tab(t, b)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const csv = "city,pop\nLyon,522250\nNantes,320732\n"
	csvFile := write("cities.csv", csv)

	step(t, ctx, "opening the chat", chromedp.Navigate(url+"/"), chromedp.WaitVisible(chromedp.ID("input")))
	step(t, ctx, "uploading the CSV", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{csvFile}))
	waitFor(t, ctx, "the upload's chip", `!!document.querySelector('#upload-chips .chip.upload')`)
	if got := eval[string](t, ctx, `document.querySelector('#upload-chips .chip.upload').textContent`); !strings.Contains(got, "cities.csv") || !strings.Contains(got, fmt.Sprintf("%d B", len(csv))) {
		t.Errorf("chip = %q, want the name and size of the CSV", got)
	}
	if eval[string](t, ctx, `location.search`) == "" {
		t.Errorf("the page has no conversation after the upload; want one made for it")
	}
	step(t, ctx, "sending a message", chromedp.SendKeys(chromedp.ID("input"), "what is in the file?"), chromedp.SendKeys(chromedp.ID("input"), kb.Enter))
	waitFor(t, ctx, "the end of the run", `document.getElementById('status').textContent.startsWith('Done')`)

	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2 (the message, then the tool result)", len(reqs))
	}
	var first, second oaRequest
	_ = json.Unmarshal(reqs[0], &first)
	_ = json.Unmarshal(reqs[1], &second)
	told := uploadIDRE.FindStringSubmatch(string(first.Messages[len(first.Messages)-1].Content))
	if told == nil {
		t.Fatalf("the first request's user message names no upload: %s", first.Messages[len(first.Messages)-1].Content)
	}
	res := second.Messages[len(second.Messages)-1]
	var resText strings.Builder
	for _, p := range res.parts() {
		resText.WriteString(p.Text)
	}
	if res.Role != "tool" || res.ToolCallID != "call_up" || !strings.Contains(resText.String(), "Nantes,320732") || !strings.Contains(resText.String(), told[1]) {
		t.Errorf("tool result = %s %q %q, want read_upload's result holding the CSV of %s", res.Role, res.ToolCallID, resText.String(), told[1])
	}
	answer := eval[string](t, ctx, `[...document.querySelectorAll('.msg.assistant')].map(e => e.textContent).join('\n')`)
	if !strings.Contains(answer, "Lyon,522250") {
		t.Errorf("answer = %q, want the CSV the tool read", answer)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#upload-chips .chip').length`); n != 0 {
		t.Errorf("%d upload chips left in the composer after sending, want 0", n)
	}

	step(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("input")))
	waitFor(t, ctx, "the stored message's upload", `!!document.querySelector('.msg.user .chip.upload')`)
	user := eval[string](t, ctx, `document.querySelector('.msg.user').textContent`)
	if !strings.Contains(user, "what is in the file?") || !strings.Contains(user, "cities.csv") || strings.Contains(user, "[Attached file") {
		t.Errorf("stored user message = %q, want its text and a chip for cities.csv, not the note for the model", user)
	}

	t.Run("refused", func(t *testing.T) {
		big := write("big.csv", strings.Repeat("a,b\n", 40))
		bin := write("blob.bin", "\x00\x01\x02\xff\xfe")
		step(t, ctx, "uploading a file over the limit", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{big}))
		waitFor(t, ctx, "the error", `!document.getElementById('upload-error').hidden`)
		msg := eval[string](t, ctx, `document.getElementById('upload-error').textContent`)
		if !strings.Contains(msg, "big.csv was not uploaded") || !strings.Contains(msg, "larger than 64 bytes") {
			t.Errorf("error = %q, want the file's name and the server's limit", msg)
		}
		step(t, ctx, "uploading a file of a refused type", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{bin}))
		waitFor(t, ctx, "the type error", `document.getElementById('upload-error').textContent.includes('blob.bin')`)
		if n := eval[int](t, ctx, `document.querySelectorAll('#upload-chips .chip').length`); n != 0 {
			t.Errorf("%d chips for refused files, want 0", n)
		}
		if msg := eval[string](t, ctx, `document.getElementById('upload-error').textContent`); !strings.Contains(msg, "application/octet-stream, which cannot be uploaded") {
			t.Errorf("error = %q, want the server's reason for refusing the type", msg)
		}
	})

	t.Run("dropped", func(t *testing.T) {
		// A file dropped on the composer is uploaded like a chosen one
		// (the drop event a browser fires, with a DataTransfer holding it).
		taken := eval[bool](t, ctx, `(() => {
			const dt = new DataTransfer();
			dt.items.add(new File(["a,b\n1,2\n"], "dropped.csv", { type: "text/csv" }));
			return !document.getElementById("composer").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		})()`)
		if !taken {
			t.Errorf("the composer did not take the drop (its default was not prevented)")
		}
		waitFor(t, ctx, "the dropped file's chip", `[...document.querySelectorAll('#upload-chips .chip.upload')].some(c => c.textContent.includes('dropped.csv'))`)
		if !eval[bool](t, ctx, `document.getElementById('upload-error').hidden`) {
			t.Errorf("an error is shown after a good upload: %q", eval[string](t, ctx, `document.getElementById('upload-error').textContent`))
		}
		step(t, ctx, "removing it", chromedp.Click(`#upload-chips .chip.upload button`))
		waitFor(t, ctx, "no chip", `document.querySelectorAll('#upload-chips .chip').length === 0`)
	})

	t.Run("new chat drops chips", func(t *testing.T) {
		// An upload belongs to its conversation: a new chat does not
		// offer it for its first message.
		step(t, ctx, "uploading again", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{csvFile}))
		waitFor(t, ctx, "the chip", `!!document.querySelector('#upload-chips .chip.upload')`)
		step(t, ctx, "starting a new chat", chromedp.Click(chromedp.ID("new-conv")))
		waitFor(t, ctx, "no chip", `document.querySelectorAll('#upload-chips .chip').length === 0`)
	})
}
