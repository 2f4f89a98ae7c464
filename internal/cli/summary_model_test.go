package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
)

// textModel is a chat-completions server in the streaming wire format of
// the other fakes here that answers every request with a text: answer
// followed by the start of the last user message it was sent.
type textModel struct {
	*httptest.Server

	mu     sync.Mutex
	bodies []string // guarded by mu
}

func newTextModel(t testing.TB, answer string) *textModel {
	f := &textModel{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		f.mu.Unlock()
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "want a chat completion request", http.StatusBadRequest)
			return
		}
		said := fmt.Sprint(req.Messages[len(req.Messages)-1].Content)
		w.Header().Set("Content-Type", "text/event-stream")
		clitest.StreamText(w, answer+said[:min(len(said), 40)])
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *textModel) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// TestSummaryModel: with context.summaryModel set, the summary of a
// conversation that outgrew the main model's window is asked of the
// cheaper model, and the turn itself of the main one, which then gets the
// cheaper model's summary in place of the earlier turn.
func TestSummaryModel(t *testing.T) {
	main, cheap := newTextModel(t, "Main says: "), newTextModel(t, "CHEAP SUMMARY of ")
	dir := t.TempDir()
	cfg := fmt.Sprintf("defaultModel: main\ncontext: {summaryModel: cheap}\nassistant: {router: off}\nmodels:\n"+
		"  main: {provider: openai, baseURL: %q, model: big, toolMode: native, contextWindow: 100}\n"+
		"  cheap: {provider: openai, baseURL: %q, model: small, toolMode: native}\n", main.URL+"/v1", cheap.URL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	first := "a first question " + strings.Repeat("with many more words ", 6)
	if r := run(t, dir, nil, "chat", "-p", first, "--conversation", "long"); r.code != 0 {
		t.Fatalf("first turn: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(cheap.requests()); n != 0 {
		t.Fatalf("the cheap model got %d requests on the first turn, want none", n)
	}
	r := run(t, dir, nil, "chat", "-p", "second", "--conversation", "long")
	if r.code != 0 {
		t.Fatalf("second turn: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Main says: second") {
		t.Errorf("answer = %q, want the main model's", r.stdout)
	}
	sums := cheap.requests()
	if len(sums) != 1 || !strings.Contains(sums[0], "compress a conversation") || !strings.Contains(sums[0], `"model":"small"`) ||
		!strings.Contains(sums[0], "a first question") {
		t.Fatalf("the cheap model got %q, want one summary request of the first turn", sums)
	}
	turns := main.requests()
	if len(turns) != 2 {
		t.Fatalf("the main model got %d requests, want 2 (one per turn)", len(turns))
	}
	for i, b := range turns {
		if strings.Contains(b, "compress a conversation") || !strings.Contains(b, `"model":"big"`) {
			t.Errorf("main model request %d is a summary request or names another model: %s", i, b)
		}
	}
	if !strings.Contains(turns[1], "CHEAP SUMMARY of") || strings.Contains(turns[1], "with many more words") {
		t.Errorf("the second turn's request = %s, want the cheap model's summary in place of the first turn", turns[1])
	}
}

// TestSummaryModelUnknown: a summaryModel naming no model is a config
// error naming the path, at once.
func TestSummaryModelUnknown(t *testing.T) {
	main := newTextModel(t, "Main says: ")
	dir := t.TempDir()
	cfg := fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: big, toolMode: native}\n"+
		"agents:\n  bob: {context: {summaryModel: cheep}}\n", main.URL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "chat", "-p", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, `agents.bob.context.summaryModel: no model named "cheep"`) {
		t.Errorf("exit %d, stderr:\n%s\nwant the unknown summary model named", r.code, r.stderr)
	}
	if n := len(main.requests()); n != 0 {
		t.Errorf("the model was asked %d times despite the config error", n)
	}
}
