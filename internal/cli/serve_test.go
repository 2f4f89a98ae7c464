package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestServeWithoutModelStartsAndStops(t *testing.T) {
	srv := startServe(t, t.TempDir())
	base := srv.base
	for _, p := range []string{"/healthz", "/", "/api/v1/tools"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", p, resp.Status)
		}
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready map[string]any
	json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if b, _ := json.Marshal(ready); !strings.Contains(string(b), "OPENAI_API_KEY") {
		t.Errorf("/readyz does not say how to connect a model: %s", b)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d:\n%s", code, srv.stderr.String())
	}
}

func TestServeRefusesOpenAddressWithoutUsers(t *testing.T) {
	r := run(t, t.TempDir(), nil, "serve", "--addr", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.stderr, "users add") {
		t.Errorf("exit %d, stderr %q; want 2 and a hint to add users", r.code, r.stderr)
	}
}

// TestServeMarksInterruptedCalls: an audit record left running by a process
// that died shows as interrupted once the service starts, and a short
// command does not do it (it could be the service's own call in flight).
func TestServeMarksInterruptedCalls(t *testing.T) {
	dir := t.TempDir()
	a := clitest.App(t, dir)
	st, err := a.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.BeginAudit(context.Background(), store.AuditRecord{Tool: "calculator", Server: "builtin", Arguments: []byte(`{}`), Approval: store.AuditAutoApproved}); err != nil {
		t.Fatal(err)
	}
	a.Close()

	if r := run(t, dir, nil, "audit", "--json"); !strings.Contains(r.stdout, `"outcome":"running"`) {
		t.Fatalf("a short command changed the running record:\n%s", r.stdout)
	}
	srv := startServe(t, dir)
	srv.stop(t)
	if r := run(t, dir, nil, "audit", "--json"); !strings.Contains(r.stdout, `"outcome":"interrupted"`) {
		t.Errorf("serve did not mark the record interrupted:\n%s\n%s", r.stdout, srv.stderr.String())
	}
}

// TestServeRunsAndMeasures: a conversation turn through the HTTP API runs
// the model and a tool server-side, streams the run as SSE, and the
// metrics count the tool call, the model requests and the MCP server.
func TestServeRunsAndMeasures(t *testing.T) {
	f := newFakeOpenAI(t, "test__echo", `{"text":"from the tool"}`)
	dir := project(t, fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", f.URL+"/v1"),
		mcptest.StdioServer(t, "test"))
	srv := startServe(t, dir)
	base := srv.base

	stream := postTurn(t, base, "echo something")
	for _, want := range []string{"event: tool_start", "event: tool_end", "Tool said: from the tool", "event: done"} {
		if !strings.Contains(string(stream), want) {
			t.Errorf("run stream lacks %q:\n%s", want, stream)
		}
	}

	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`switchboard_tool_calls_total{outcome="ok",server="test",tool="test__echo"} 1`,
		`switchboard_model_requests_total{model="default",outcome="ok"} 2`,
		`switchboard_mcp_server_up{server="test"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d:\n%s", code, srv.stderr.String())
	}
}

// served is `switchboard serve` running for one test on a free loopback port.
type served struct {
	base   string // http://127.0.0.1:PORT
	stderr *clitest.Buffer
	cancel context.CancelFunc
	exited chan struct{} // closed when serve has returned code
	code   int
}

// startServe runs serve in dir and waits until it listens. The test must
// stop it (stop is idempotent; cleanup stops it too).
func startServe(t *testing.T, dir string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stderr: &clitest.Buffer{}, cancel: cancel, exited: make(chan struct{})}
	go func() {
		s.code = Run(ctx, &Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: s.stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
		close(s.exited)
	}()
	t.Cleanup(func() { s.stop(t) })
	s.base = clitest.Listening(t, "serve", s.stderr, s.exited)
	return s
}

// stop ends serve as Ctrl-C does and returns its exit code.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case <-s.exited:
		return s.code
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
		return -1
	}
}

// postTurn runs one turn in a new conversation through the HTTP API and
// returns the run's SSE stream.
func postTurn(t *testing.T, base, message string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/v1/conversations", "application/json", strings.NewReader(`{"title":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	var conv struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&conv)
	resp.Body.Close()
	body, _ := json.Marshal(map[string]string{"message": message})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/conversations/"+conv.ID+"/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stream, _ := io.ReadAll(resp.Body)
	return string(stream)
}

// TestServeTraces: with a trace endpoint, an API turn produces spans for the
// HTTP request, the agent run, each model request and the MCP tool call.
func TestServeTraces(t *testing.T) {
	var (
		mu    sync.Mutex
		paths []string
		body  []byte
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths, body = append(paths, r.URL.Path), append(body, b...)
		mu.Unlock()
	}))
	defer collector.Close()
	f := newFakeOpenAI(t, "test__echo", `{"text":"traced"}`)
	dir := project(t, fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\ntracing: {endpoint: %q}\n",
		f.URL+"/v1", collector.URL), mcptest.StdioServer(t, "test"))
	srv := startServe(t, dir)
	base := srv.base
	if b := postTurn(t, base, "echo"); !strings.Contains(b, "event: done") {
		t.Errorf("run did not complete:\n%s", b)
	}
	if code := srv.stop(t); code != 0 { // shutdown flushes the spans
		t.Fatalf("exit %d:\n%s", code, srv.stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces" {
		t.Fatalf("collector got %v; want exports at /v1/traces", paths)
	}
	for _, span := range []string{"agent.run", "model.request", "mcp.tools/call"} {
		if !bytes.Contains(body, []byte(span)) {
			t.Errorf("no %q span exported", span)
		}
	}
}
