package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
	"github.com/switchboard-mcp/switchboard/internal/web"
)

// stack is Switchboard's HTTP server on a real SQLite store, the real
// built-in tools confined to root and a real agent runtime whose model is
// a scripted fake, served by httptest with the web UI mounted.
type stack struct {
	url  string
	root string
	db   *sqlite.DB
	// stopped is closed when the model sees its request cancelled (the
	// server cancels the run when the browser aborts the stream).
	stopped chan struct{}
	// key is alice's API key when the stack requires keys.
	key string
	// conns answers /api/v1/connections.
	conns *connectionsFake
	// restarts receives the servers the UI asked to restart.
	restarts chan string
}

// stackOptions vary the stack: keys turns anonymous access off and adds
// the user alice, an admin (plainUser makes her an ordinary user);
// noModel makes the server report no configured model.
type stackOptions struct {
	keys      bool
	plainUser bool
	noModel   bool
	// configProblems, when set, is what /readyz lists as a refused
	// edit of the config file.
	configProblems func() []string
	// signIn, when set, gives the server sign-in through an OpenID
	// provider; it is called with the store and the server's URL (the
	// provider must know the callback before the server serves).
	signIn func(db *sqlite.DB, url string) *server.SignIn
	// now, when set, is the server's clock.
	now func() time.Time
}

// echo answers a call with its arguments, or with an error result when
// they ask for one.
func echo(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
	res := tools.TextResult("got " + string(req.Arguments))
	res.IsError = strings.Contains(string(req.Arguments), `"fail":true`)
	return res, nil
}

// formTools have a schema the tools page renders as a form (every simple
// field type) and one it cannot (oneOf), which gets the JSON fallback.
func formTools() []tools.Tool {
	return []tools.Tool{
		&tools.Func{Run: echo, Spec: tools.Info{Name: "search_notes", Description: "Search the notes.", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"query":{"type":"string","description":"Words to find."},
			"limit":{"type":"integer","default":10},
			"score":{"type":"number"},
			"fail":{"type":"boolean","description":"Answer with an error."},
			"order":{"type":"string","enum":["newest","oldest"]},
			"tags":{"type":"array","items":{"type":"string"}}},
			"required":["query","order"]}`)}},
		&tools.Func{Run: echo, Spec: tools.Info{Name: "move_note", Description: "Move a note.", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"to":{"oneOf":[{"type":"string"},{"type":"object"}]}}}`)}},
	}
}

// servers is a hand-written [server.Servers] with one MCP server; restarts
// records the names asked to restart (buffered; a full buffer drops them).
type servers struct{ restarts chan string }

func (servers) Status() []server.ServerStatus {
	return []server.ServerStatus{
		{Name: "builtin", Kind: "builtin", State: "ready", Tools: 8},
		{Name: "notes", Kind: "mcp", State: "ready", Transport: "stdio", Tools: 2, Error: "process exited with status 1", Restarts: 2},
	}
}

func (s servers) Restart(_ context.Context, name string) error {
	if name != "notes" {
		return fmt.Errorf("restarting %q: %w", name, server.ErrNoServer)
	}
	select {
	case s.restarts <- name:
	default:
	}
	return nil
}

func (servers) Stderr(name string) ([]string, bool) {
	if name != "notes" {
		return nil, false
	}
	return []string{"notes: starting", "notes: cannot open notes.db: permission denied"}, true
}

// model answers like a model that writes a file when asked to: the first
// step of a turn calls write_file with the file named in the message, the
// step after the tool result says how it went, in several deltas. A
// message starting "wait" gets a first delta and then nothing until the
// request is cancelled, which closes stopped.
func model(writeTool string, stopped chan struct{}) *llmtest.FakeProvider {
	var once sync.Once
	return &llmtest.FakeProvider{Respond: func(ctx context.Context, _ int, req *llm.Request) iter.Seq2[llm.Event, error] {
		last := req.Messages[len(req.Messages)-1]
		var turn llmtest.Turn
		switch {
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Text(), "@bob"):
			turn.Text = []string{"Bob here: ", "nothing to write."}
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Text(), "break"):
			return func(yield func(llm.Event, error) bool) {
				yield(llm.Event{}, errors.New("the fake model broke on purpose"))
			}
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Text(), "wait"):
			return func(yield func(llm.Event, error) bool) {
				if !yield(llm.Event{Type: llm.EventReasoningDelta, Text: "The user wants me to wait."}, nil) {
					return
				}
				if !yield(llm.Event{Type: llm.EventTextDelta, Text: "Let me think about that"}, nil) {
					return
				}
				<-ctx.Done()
				once.Do(func() { close(stopped) })
				yield(llm.Event{}, ctx.Err())
			}
		case last.Role == llm.RoleTool && strings.Contains(last.Text(), "declined"):
			turn.Text = []string{"Understood: ", "I did **not** write ", "the file."}
		case last.Role == llm.RoleTool:
			turn.Text = []string{"Done. I wrote ", "the file with ", "`write_file`:\n\n- one line\n- no errors"}
		default:
			name := strings.Fields(last.Text())
			turn.ToolCalls = []llmtest.ToolCallScript{{
				ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: writeTool,
				ArgChunks: []string{`{"path":"` + name[len(name)-1] + `",`, `"content":"hello from the browser"}`},
			}}
		}
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range llmtest.Events(turn) {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}}
}

func newStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	ctx := context.Background()
	s := &stack{root: t.TempDir(), stopped: make(chan struct{}), restarts: make(chan string, 4)}
	db := testStore(t)
	s.db = db
	bt, err := builtin.New(&builtin.Options{Roots: []string{s.root}})
	if err != nil {
		t.Fatalf("building built-in tools: %v", err)
	}
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, bt)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "notes"}, formTools())
	writeTool := ""
	for _, e := range reg.List() {
		if e.Origin.Name == "write_file" {
			writeTool = e.Name
		}
	}
	fake := model(writeTool, s.stopped)
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(string) (agent.Model, error) {
		return agent.Model{Name: "default", Provider: fake, ToolMode: agent.ToolModeNative}, nil
	}, reg, g, &agent.Options{
		Assistant: store.Agent{Router: string(agent.RouterOff)},
		Agents:    db,
		History:   db,
		Approvals: db,
	})
	if _, err := db.CreateAgent(ctx, store.Agent{Name: "bob", Description: "handles notes", Prompt: "You handle notes.", Router: "off"}); err != nil {
		t.Fatalf("creating agent bob: %v", err)
	}
	models := []string{"default"}
	if o.noModel {
		models = nil
	}
	if o.keys {
		key, hash := server.NewAPIKey()
		role := store.RoleAdmin
		if o.plainUser {
			role = store.RoleUser
		}
		if _, err := db.CreateUser(ctx, store.User{Name: "alice", KeyHash: hash, Permissions: []string{"*"}, Role: role}); err != nil {
			t.Fatalf("creating user: %v", err)
		}
		s.key = key
	}
	s.conns = &connectionsFake{creds: map[string]string{}, states: map[string]string{}}
	// The listener starts first so that sign-in can name its callback.
	var handler atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	s.url = ts.URL
	var signIn *server.SignIn
	label := ""
	if o.signIn != nil {
		signIn = o.signIn(db, ts.URL)
		label = signIn.Label
	}
	srv := server.New(server.StoresOf(db), rt, reg, g, &server.Options{
		SignIn: signIn,
		Now:    o.now,
		RunLog: db, Changes: db,
		Connections:  s.conns,
		UpstreamAuth: s.conns,
		// As in serve: Switchboard is the OAuth server of its /mcp.
		OAuth:          db,
		OAuthIssuer:    db,
		Servers:        servers{s.restarts},
		Config:         newRuntimeConfig(),
		Models:         func() []string { return models },
		ConfigProblems: o.configProblems,
		AllowAnonymous: !o.keys,
		// As served: a turn goes on when its page is reloaded.
		KeepRunsOnLeave: true,
		Logger:          warnLogger(t),
		Web:             web.Handler(&web.Options{Version: "test", SignIn: label}),
	})
	h := srv.Handler()
	handler.Store(&h)
	return s
}
