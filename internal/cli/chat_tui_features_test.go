package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/chat"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// echoModel is an OpenAI-compatible model that answers every request with
// "ok" and keeps the request bodies: it knows only what it is sent.
type echoModel struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newEchoModel(t *testing.T) *echoModel {
	e := &echoModel{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.bodies = append(e.bodies, string(body))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		clitest.StreamText(w, "answered")
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *echoModel) last() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.bodies) == 0 {
		return ""
	}
	return e.bodies[len(e.bodies)-1]
}

func (e *echoModel) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.bodies)
}

// everythingChat starts an app with the real server-everything and a
// model that answers from what it is sent, and the terminal chat's
// backend on it for the person permitted perms (nil: the local user).
func everythingChat(t *testing.T, perms []string) (*chatBackend, *echoModel) {
	t.Helper()
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/server-everything")
	model := newEchoModel(t)
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.Models = map[string]config.Model{"default": {Provider: "openai", BaseURL: model.URL + "/v1", Model: "fake", ToolMode: "native"}}
	cfg.DefaultModel = "default"
	cfg.MCPServers = map[string]config.MCPServer{"everything": {
		Command: node, Args: []string{filepath.Join(nm, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"},
	}}
	a, err := app.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, up := a.Registry().Lookup("everything__echo"); !up {
		t.Fatalf("server-everything not connected: %+v", a.Servers())
	}
	if _, err := a.Runtime(t.Context()); err != nil {
		t.Fatal(err)
	}
	feats, err := a.ChatFeatures(t.Context(), "tester", perms)
	if err != nil {
		t.Fatal(err)
	}
	return &chatBackend{app: a, chatOfferings: chatOfferings{feats}}, model
}

// tui runs the terminal chat on b with in-memory input and output.
type tui struct {
	t     *testing.T
	out   clitest.Buffer
	typed *io.PipeWriter
	errc  chan error
}

func startTUI(t *testing.T, b chat.Backend) *tui {
	t.Helper()
	in, typed := io.Pipe()
	u := &tui{t: t, typed: typed, errc: make(chan error, 1)}
	go func() {
		u.errc <- chat.RunTUI(t.Context(), b, &chat.Options{Stdin: in, Stdout: &u.out, Width: 200, Height: 60, NewConversationID: func() string { return "c1" }})
	}()
	t.Cleanup(func() {
		typed.Close()
		select {
		case <-u.errc:
		case <-time.After(20 * time.Second):
			t.Error("the chat did not end")
		}
	})
	u.wait("the prompt", func(s string) bool { return strings.Contains(s, "Ask anything") })
	return u
}

func (u *tui) screen() string { return ansi.Strip(u.out.String()) }

func (u *tui) typeText(s string) { io.WriteString(u.typed, s) }

func (u *tui) wait(what string, cond func(string) bool) {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond(u.screen()) {
		if time.Now().After(deadline) {
			u.t.Fatalf("timed out waiting for %s; screen:\n%s", what, u.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestChatTUIPromptsAndResources runs the terminal chat with the real
// server-everything: /prompts lists its prompts, a prompt with an
// argument runs and the model is sent its text with the value, a missing
// argument is named, tab completes an argument value through
// completion/complete and an @ resource, whose text reaches the model.
func TestChatTUIPromptsAndResources(t *testing.T) {
	cb, model := everythingChat(t, nil)
	b := &answeredBackend{chatBackend: cb, answered: make(chan struct{}, 1)}
	u := startTUI(t, b)

	u.typeText("/prompts\r")
	u.wait("the prompt list", func(s string) bool { return strings.Contains(s, "/everything__args-prompt") })

	u.typeText("/everything__args-prompt\r")
	u.wait("the missing argument named", func(s string) bool {
		return strings.Contains(s, "the prompt /everything__args-prompt needs city")
	})
	if model.count() != 0 {
		t.Fatalf("a prompt without its required argument reached the model")
	}
	// The chat asks for it: the line is back with city= typed (in the
	// same update that shows the error), so the value alone completes it.
	u.typeText(`"Lisbon Town"` + "\r")
	u.wait("the answer", func(s string) bool { return strings.Contains(s, "answered") })
	if body := model.last(); !strings.Contains(body, "Lisbon Town") {
		t.Errorf("the model was sent %s, want the prompt's text with the city", body)
	}

	// completion/complete: server-everything completes departments.
	// The screen is redrawn in pieces, so the completed line is judged
	// by what the model is sent when it runs.
	u.typeText("/everything__completable-prompt department=Sa\t")
	b.wait(t)
	before := model.count()
	u.typeText("name=Bob\r")
	u.wait("the prompt's answer", func(string) bool { return model.count() > before })
	if body := model.last(); !strings.Contains(body, "Sales") {
		t.Errorf("the model was sent %s, want the completed department Sales", body)
	}

	rs, err := cb.Resources(t.Context())
	if err != nil || len(rs) < 2 {
		t.Fatalf("resources %v, %v; want several", rs, err)
	}
	// Tab after a bare @ lists several resources.
	u.typeText("@switchboard\t")
	b.wait(t)
	u.wait("the resource list", func(s string) bool { return strings.Contains(s, rs[0].URI) && strings.Contains(s, rs[1].URI) })
	u.typeText("\x03")
	// A unique part completes to the whole URI.
	target := rs[len(rs)-1]
	u.typeText("@" + target.URI[len(target.URI)-12:] + "\t")
	b.wait(t)
	before = model.count()
	u.typeText("what does it say?\r")
	u.wait("the second answer", func(string) bool { return model.count() > before })
	u.wait("the attachment noted", func(s string) bool { return strings.Contains(s, "attached "+target.URI) })
	if body := model.last(); !strings.Contains(body, "Attached resource "+target.URI) {
		t.Errorf("the model was sent %s, want the attached resource's contents", body)
	}
}

// TestChatTUIPromptsNotPermitted runs the chat as a person whose
// permissions do not cover server-everything: no prompts are listed, tab
// completes no resource, and a prompt and a resource typed by name are
// refused without reaching the model.
func TestChatTUIPromptsNotPermitted(t *testing.T) {
	b, model := everythingChat(t, []string{"calculator"})
	u := startTUI(t, b)
	u.typeText("/prompts\r")
	u.wait("no prompts", func(s string) bool { return strings.Contains(s, "No prompts") })
	u.typeText("@switchboard\t")
	u.wait("no resource", func(s string) bool { return strings.Contains(s, "no resource matches @switchboard") })
	u.typeText("\x03")
	u.typeText("/everything__simple-prompt\r")
	u.wait("the refusal", func(s string) bool {
		return strings.Contains(s, "no prompt /everything__simple-prompt that you may run")
	})
	u.typeText("read @switchboard://everything/demo://resource/static/document/architecture.md\r")
	u.wait("the refusal", func(s string) bool { return strings.Contains(s, "your permissions do not cover the server everything") })
	if n := model.count(); n != 0 {
		t.Errorf("the model was sent %d requests, want none", n)
	}
}

// answeredBackend says when the servers answered a completion, so that a
// test types on only once the chat has put the completion in place.
type answeredBackend struct {
	*chatBackend
	answered chan struct{}
}

func (b *answeredBackend) Complete(ctx context.Context, req chat.CompleteRequest) ([]string, error) {
	defer func() { b.answered <- struct{}{} }()
	return b.chatBackend.Complete(ctx, req)
}

func (b *answeredBackend) Resources(ctx context.Context) ([]chat.Resource, error) {
	defer func() { b.answered <- struct{}{} }()
	return b.chatBackend.Resources(ctx)
}

// wait waits for the next answer, then gives the chat a moment to take
// it (a message on its own goroutine, no server in between).
func (b *answeredBackend) wait(t *testing.T) {
	t.Helper()
	select {
	case <-b.answered:
	case <-time.After(30 * time.Second):
		t.Fatal("no completion was asked for")
	}
	time.Sleep(200 * time.Millisecond)
}
