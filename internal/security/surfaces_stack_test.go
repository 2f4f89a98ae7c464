package security

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// surfaceStack is Switchboard as `switchboard serve` runs it: the real app
// wiring from a config file, a real SQLite file, a real MCP server (the
// in-process Streamable HTTP test server, named "test"), and a model
// served on the OpenAI wire by surfaceModel.
type surfaceStack struct {
	dir   string // the project directory: switchboard.yaml and the data
	base  string
	app   *app.App
	st    store.Store
	model *surfaceModel
	ids   map[string]string // user name to store ID, of users made by user
}

// stackConfig is the configuration of one stack: tool calls per minute
// per user (6 gives a burst of one call, then one per ten seconds).
const stackConfig = `rateLimits: {toolCallsPerMinute: 6}
approvals:
  timeout: 20s
  rules: [{server: test, tool: fail, policy: deny}]
agents:
  helper: {description: "Helps with the test server.", servers: [test]}
`

func newSurfaceStack(t *testing.T) *surfaceStack {
	t.Helper()
	return newStackWith(t, stackConfig, nil)
}

// stackAdminKey is the key of the stack's first user, "admin" (role user,
// no tool permissions), which may read /metrics.
const stackAdminKey = "sb_admin-not-used"

// newStack is newSurfaceStack with config.
func newStack(t *testing.T, config string) *surfaceStack {
	t.Helper()
	return newStackWith(t, config, nil)
}

// newStackWith is newSurfaceStack with config (rate limits, approvals,
// agents) and, when set, prepare run on the store before the app starts.
func newStackWith(t *testing.T, config string, prepare func(store.Store)) *surfaceStack {
	t.Helper()
	sc, _ := mcptest.HTTPServer(t, "test", nil)
	m := newSurfaceModel(t)
	servers, _ := json.Marshal(map[string]any{"test": map[string]any{"type": "http", "url": sc.URL}})
	dir := project(t, fmt.Sprintf("mcpServers: %s\n", servers)+modelConfig(m.URL)+config)
	a := clitest.App(t, dir)
	st, err := a.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(st)
	}
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	// One user first, so the service does not run anonymously.
	if _, err := st.CreateUser(t.Context(), store.User{Name: "admin", KeyHash: server.HashKey(stackAdminKey), Permissions: []string{}}); err != nil {
		t.Fatal(err)
	}
	base := clitest.Serve(t, a)
	s := &surfaceStack{dir: dir, base: base, app: a, st: st, model: m, ids: map[string]string{}}
	// The MCP server connects in the background; wait for its tools.
	if !mcptest.Poll(20*time.Second, func() bool {
		_, ok := a.Registry().Lookup("test__add")
		return ok
	}) {
		t.Fatal("the test MCP server's tools did not appear")
	}
	return s
}

// user creates a user with the permission globs and returns its API key.
func (s *surfaceStack) user(t *testing.T, name string, perms ...string) string {
	t.Helper()
	return s.userWithRole(t, name, store.RoleUser, perms...)
}

// userWithRole is user with a role.
func (s *surfaceStack) userWithRole(t *testing.T, name string, role store.Role, perms ...string) string {
	t.Helper()
	key, hash := server.NewAPIKey()
	if perms == nil {
		perms = []string{}
	}
	u, err := s.st.CreateUser(t.Context(), store.User{Name: name, KeyHash: hash, Permissions: perms, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	s.ids[name] = u.ID
	return key
}

// do sends an API request as the holder of key and returns status and body.
func (s *surfaceStack) do(t *testing.T, key, method, path string, body any) (int, []byte) {
	t.Helper()
	return httpCall(t, method, s.base+path, key, body)
}

// postMessage creates a conversation as the holder of key and posts
// message to it, asking for the run's SSE stream; it returns the
// conversation's ID and the open stream, which the caller closes.
// Cancelling ctx leaves the stream, as a client going away does.
func (s *surfaceStack) postMessage(t *testing.T, ctx context.Context, key, message string) (string, *http.Response) {
	t.Helper()
	code, b := s.do(t, key, http.MethodPost, "/api/v1/conversations", map[string]string{"title": "t"})
	var conv struct{ ID string }
	if json.Unmarshal(b, &conv) != nil || code/100 != 2 {
		t.Fatalf("creating a conversation: %d %s", code, b)
	}
	body, _ := json.Marshal(map[string]string{"message": message})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/api/v1/conversations/"+conv.ID+"/messages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return conv.ID, resp
}

// audit returns the audit records of user name for tool, oldest first.
func (s *surfaceStack) audit(t *testing.T, name, tool string) []store.AuditRecord {
	t.Helper()
	recs, err := s.st.ListAudit(t.Context(), store.AuditFilter{User: name, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs
}

// pendingApproval waits for the first pending approval key may decide.
func (s *surfaceStack) pendingApproval(t *testing.T, key string) string {
	t.Helper()
	var id string
	mcptest.Poll(10*time.Second, func() bool {
		_, b := s.do(t, key, http.MethodGet, "/api/v1/approvals", nil)
		var l struct{ Items []struct{ ID string } }
		_ = json.Unmarshal(b, &l)
		if len(l.Items) > 0 {
			id = l.Items[0].ID
		}
		return id != ""
	})
	if id == "" {
		t.Fatal("no pending approval appeared")
	}
	return id
}

// surfaceModel is a chat model on the OpenAI wire. It answers only from
// what it is shown: when the last message is the user's and names a tool
// as "call TOOL {ARGS}", it calls that tool with those arguments; after a
// tool result it reports the result; otherwise it says it has nothing to
// do.
type surfaceModel struct {
	*httptest.Server
	mu    sync.Mutex
	asked int             // requests served, guarded by mu
	shown map[string]bool // every tool name a request offered, guarded by mu
}

var callRE = regexp.MustCompile(`call (\S+) (\{.*\})`)

func newSurfaceModel(t *testing.T) *surfaceModel {
	m := &surfaceModel{shown: map[string]bool{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req modelRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.asked++
		for _, tl := range req.Tools {
			m.shown[tl.Function.Name] = true
		}
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		last := req.Messages[len(req.Messages)-1]
		text := fmt.Sprint(last.Content)
		if last.Role == "user" {
			if c := callRE.FindStringSubmatch(text); c != nil {
				clitest.StreamToolCall(w, fmt.Sprintf("call_%d", len(req.Messages)), c[1], c[2])
				return
			}
		}
		answer := "Nothing to do."
		if last.Role == "tool" {
			answer = "Tool said: " + text
		}
		clitest.StreamText(w, answer)
	}))
	t.Cleanup(m.Close)
	return m
}

// sseApprovals reads a run's SSE stream to its end, calling onApproval with
// the ID of each approval event, and returns the stream's text and whether
// a tool call ended ok.
func sseApprovals(r io.Reader, onApproval func(id string)) (string, bool) {
	ranOK := false
	var all strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "tool_end":
			var ev struct {
				Result struct{ Outcome string } `json:"result"`
			}
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev) == nil && ev.Result.Outcome == "ok" {
				ranOK = true
			}
		case strings.HasPrefix(line, "data: ") && event == "approval":
			var ev struct {
				Approval struct{ ID string } `json:"approval"`
			}
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev) == nil && ev.Approval.ID != "" {
				onApproval(ev.Approval.ID)
			}
		}
	}
	return all.String(), ranOK
}
