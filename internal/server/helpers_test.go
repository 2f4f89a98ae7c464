package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRunner is a hand-written [Runner] with function fields.
type fakeRunner struct {
	run    func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error]
	decide func(ctx context.Context, id string, d agent.Decision) error
}

func (f *fakeRunner) Run(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
	if f.run == nil {
		return events(agent.Event{Kind: agent.EventText, Text: "hello"}, doneEvent(req.RunID))
	}
	return f.run(ctx, req)
}

func (f *fakeRunner) Decide(ctx context.Context, id string, d agent.Decision) error {
	if f.decide == nil {
		return agent.ErrNotPending
	}
	return f.decide(ctx, id, d)
}

func events(evs ...agent.Event) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func doneEvent(runID string) agent.Event {
	return agent.Event{Kind: agent.EventDone, Done: &agent.Done{RunID: runID, StopReason: agent.StopEndTurn}}
}

// newTool returns a read-only in-process tool that echoes its arguments.
func newTool(name string) *tools.Func {
	return &tools.Func{
		Spec: tools.Info{
			Name: name, Description: name + " tool",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
			Annotations: &tools.Annotations{ReadOnlyHint: true},
		},
		Run: func(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
			return tools.TextResult("echo " + string(req.Arguments)), nil
		},
	}
}

// env is one server on a real SQLite store and a real tools.Registry,
// served by httptest.
type env struct {
	db     *sqlite.DB
	reg    *tools.Registry
	runner *fakeRunner
	srv    *Server
	ts     *httptest.Server
	// key is alice's API key; alice is an admin and may call tools
	// matching "files__echo*". userID is alice's ID.
	key    string
	userID string
}

func openDB(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "switchboard.db"), nil)
	if err != nil {
		t.Fatalf("opening store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newEnv is newEnvGate with a gate that records into the env's store and
// has no tool-call limit.
func newEnv(t testing.TB, edit func(*Options)) *env {
	t.Helper()
	return newEnvGate(t, nil, edit)
}

// newEnvGate returns a server on a fresh store whose gate is built from
// gopts (nil: no limit, default policy) with the store as its audit log.
func newEnvGate(t testing.TB, gopts *gate.Options, edit func(*Options)) *env {
	t.Helper()
	e := &env{db: openDB(t), reg: tools.NewRegistry(nil), runner: &fakeRunner{}}
	if gopts == nil {
		gopts = &gate.Options{}
	}
	gopts.Audit = e.db
	e.reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{newTool("echo"), newTool("secret")})
	key, hash := NewAPIKey()
	u, err := e.db.CreateUser(context.Background(), store.User{Name: "alice", KeyHash: hash, Permissions: []string{"files__echo*"}, Role: store.RoleAdmin})
	if err != nil {
		t.Fatalf("creating user: %v", err)
	}
	e.key, e.userID = key, u.ID
	opts := &Options{Models: func() []string { return []string{"default"} }, RunLog: e.db, Changes: e.db}
	if edit != nil {
		edit(opts)
	}
	// The gate counts tool calls in the server's metrics, as the app wires it.
	if opts.Metrics == nil {
		opts.Metrics = observe.NewMetrics()
	}
	gopts.Observe = opts.Metrics.ObserveToolCall
	e.srv = New(StoresOf(e.db), e.runner, e.reg, gate.New(gopts), opts)
	e.ts = httptest.NewServer(e.srv.Handler())
	t.Cleanup(e.ts.Close)
	return e
}

// addUser creates a user with role and permissions and returns its key.
func (e *env) addUser(t testing.TB, name string, role store.Role, perms ...string) string {
	t.Helper()
	key, hash := NewAPIKey()
	if _, err := e.db.CreateUser(context.Background(), store.User{Name: name, KeyHash: hash, Permissions: perms, Role: role}); err != nil {
		t.Fatalf("creating user %s: %v", name, err)
	}
	return key
}

// removeAlice deletes alice, leaving the store without users: anonymous
// access, where allowed, applies again.
func (e *env) removeAlice(t testing.TB) {
	t.Helper()
	if err := e.db.DeleteUser(context.Background(), e.userID); err != nil {
		t.Fatalf("deleting alice: %v", err)
	}
	e.srv.users.Invalidate() // as the app does after its own writes
}

// do sends a request with alice's key (key "" sends none) and returns the
// status and body.
func (e *env) do(t testing.TB, method, path, key string, body any) (int, []byte) {
	t.Helper()
	resp := e.send(t, method, path, key, body, nil)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, b
}

func (e *env) send(t testing.TB, method, path, key string, body any, hdr http.Header) *http.Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, e.ts.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// decode unmarshals b into a new T.
func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

// createConversation creates a conversation for alice and returns its id.
func (e *env) createConversation(t testing.TB) string {
	t.Helper()
	code, b := e.do(t, http.MethodPost, "/api/v1/conversations", e.key, map[string]string{"title": "t"})
	if code != http.StatusCreated {
		t.Fatalf("creating conversation: %d %s", code, b)
	}
	return decode[conversationJSON](t, b).ID
}

// openStream posts a message and returns the SSE response (caller closes).
func (e *env) openStream(t testing.TB, ctx context.Context, conv, msg string) *http.Response {
	t.Helper()
	j, _ := json.Marshal(postMessageBody{Message: msg})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.ts.URL+"/api/v1/conversations/"+conv+"/messages", bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatalf("posting message: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("posting message: %d %s", resp.StatusCode, b)
	}
	return resp
}

// readEvents reads SSE events until the body ends, calling on for each.
func readEvents(t testing.TB, body io.Reader, on func(sse.Event)) []string {
	t.Helper()
	var names []string
	for ev, err := range sse.Events(body, nil) {
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		names = append(names, ev.Type)
		if on != nil {
			on(ev)
		}
	}
	return names
}

func newTestServer(t testing.TB, srv *Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}
