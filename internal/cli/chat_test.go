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

// fakeOpenAI is a chat-completions server that speaks the streaming wire
// format: while the conversation has no tool result it asks for call, then it
// answers with the tool result's text quoted.
type fakeOpenAI struct {
	*httptest.Server

	mu     sync.Mutex
	bodies []string
}

func newFakeOpenAI(t testing.TB, tool, args string) *fakeOpenAI {
	f := &fakeOpenAI{}
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
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			clitest.StreamToolCall(w, fmt.Sprintf("call_%d", len(req.Messages)), tool, args)
			return
		}
		clitest.StreamText(w, fmt.Sprintf("Tool said: %v", last.Content))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// chatProject writes a config whose default model is the fake server.
func chatProject(t *testing.T, f *fakeOpenAI) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", f.URL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestChatOnceCallsAToolAndAudits(t *testing.T) {
	f := newFakeOpenAI(t, "calculator", `{"expression":"6*7"}`)
	dir := chatProject(t, f)

	r := run(t, dir, nil, "chat", "-p", "what is 6*7?", "--conversation", "c-1")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Tool said: 42") {
		t.Errorf("answer %q lacks the tool's result", r.stdout)
	}
	if !strings.Contains(r.stderr, "calculator") {
		t.Errorf("stderr %q lacks the tool call", r.stderr)
	}

	// The same conversation continues: the model sees the earlier turn.
	r = run(t, dir, nil, "chat", "-p", "and again", "--conversation", "c-1")
	if r.code != 0 {
		t.Fatalf("second turn: exit %d\n%s", r.code, r.stderr)
	}
	reqs := f.requests()
	if last := reqs[len(reqs)-2]; !strings.Contains(last, "what is 6*7?") || !strings.Contains(last, "and again") {
		t.Errorf("second turn's request lacks the first turn:\n%s", last)
	}

	r = run(t, dir, nil, "audit", "--json", "--tool", "calc*")
	if r.code != 0 {
		t.Fatalf("audit: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit has %d records, want 2:\n%s", len(lines), r.stdout)
	}
	var rec auditJSON
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Tool != "calculator" || rec.Server != "builtin" || rec.Outcome != "ok" || rec.Approval != "auto" ||
		rec.Conversation != "c-1" || !strings.Contains(string(rec.Arguments), "6*7") {
		t.Errorf("audit record = %+v", rec)
	}
	if r := run(t, dir, nil, "audit", "--since", "yesterday"); r.code != 2 {
		t.Errorf("bad --since: exit %d, want 2", r.code)
	}
}

func TestChatOnceApprovals(t *testing.T) {
	f := newFakeOpenAI(t, "write_file", `{"path":"out.txt","content":"hello"}`)
	dir := chatProject(t, f)

	r := run(t, dir, nil, "chat", "-p", "write hello to out.txt")
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Fatalf("write_file ran without approval\nstderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "--yes") {
		t.Errorf("denial not reported with a hint:\n%s", r.stderr)
	}

	r = run(t, dir, nil, "chat", "-p", "write hello to out.txt", "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hello" {
		t.Errorf("out.txt = %q, %v; want hello", b, err)
	}
	r = run(t, dir, nil, "audit", "--json", "--tool", "write_file")
	if !strings.Contains(r.stdout, `"approval":"approved"`) || !strings.Contains(r.stdout, `"outcome":"denied"`) {
		t.Errorf("audit lacks the denied and the approved call:\n%s", r.stdout)
	}
}

func TestChatWithoutModel(t *testing.T) {
	r := run(t, t.TempDir(), nil, "chat", "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Errorf("exit %d, stderr %q; want 2 and how to connect a model", r.code, r.stderr)
	}
}

func TestUsers(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, nil, "users", "add", "alice", "--allow", "files__*,calculator")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "sb_") {
		t.Fatalf("users add: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	key := strings.TrimSpace(r.stdout)
	if r := run(t, dir, nil, "users", "add", "alice"); r.code != 2 || !strings.Contains(r.stderr, "exists") {
		t.Errorf("duplicate user: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run(t, dir, nil, "users", "list")
	if !strings.Contains(r.stdout, "alice") || !strings.Contains(r.stdout, "files__*,calculator") || strings.Contains(r.stdout, key) {
		t.Errorf("users list:\n%s", r.stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".switchboard", "switchboard.db*")) // with -wal and -shm
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), key) {
			t.Errorf("%s holds the API key in clear", f)
		}
	}
	if r := run(t, dir, nil, "users", "rm", "alice"); r.code != 0 {
		t.Errorf("users rm: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "users", "rm", "alice"); r.code != 2 {
		t.Errorf("users rm of a missing user: exit %d, want 2", r.code)
	}
}

func TestAgents(t *testing.T) {
	dir := project(t, "agents:\n  bob: {description: e-mail, servers: []}\n")
	steps := []struct {
		args []string
		code int
	}{
		{[]string{"agents", "add", "frank", "--description", "research", "--servers", "files"}, 0},
		{[]string{"agents", "add", "frank"}, 2}, // exists
		{[]string{"agents", "assign", "bob", "email"}, 0},
		{[]string{"agents", "remove", "frank", "files"}, 0},
		{[]string{"agents", "assign", "nobody", "email"}, 2},
	}
	for _, s := range steps {
		if r := run(t, dir, nil, s.args...); r.code != s.code {
			t.Fatalf("%v: exit %d, want %d\n%s", s.args, r.code, s.code, r.stderr)
		}
	}
	r := run(t, dir, nil, "agents", "list")
	lines := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	if !strings.Contains(lines["bob"], "email") || !strings.Contains(lines["bob"], "config") {
		t.Errorf("bob: %q", lines["bob"])
	}
	if !strings.Contains(lines["frank"], "runtime") || strings.Contains(lines["frank"], "files") {
		t.Errorf("frank: %q", lines["frank"])
	}
	if r := run(t, dir, nil, "agents", "rm", "frank"); r.code != 0 {
		t.Errorf("rm: exit %d %s", r.code, r.stderr)
	}
}
