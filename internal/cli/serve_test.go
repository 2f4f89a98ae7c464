package cli

import (
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

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// syncBuffer is a strings.Builder safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeWithoutModelStartsAndStops(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, &Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: &stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	re := regexp.MustCompile(`listening on (http://\S+)`)
	var base string
	deadline := time.Now().Add(30 * time.Second)
	for base == "" && time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if base == "" {
		t.Fatalf("serve did not start:\n%s", stderr.String())
	}
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
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
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
	a := newTestApp(t, dir)
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
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, &Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: &stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "listening on") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if r := run(t, dir, nil, "audit", "--json"); !strings.Contains(r.stdout, `"outcome":"interrupted"`) {
		t.Errorf("serve did not mark the record interrupted:\n%s\n%s", r.stdout, stderr.String())
	}
}

// TestServeRunsAndMeasures: a conversation turn through the HTTP API runs
// the model and a tool server-side, streams the run as SSE, and the
// metrics count the tool call, the model requests and the MCP server.
func TestServeRunsAndMeasures(t *testing.T) {
	f := newFakeOpenAI(t, "test__echo", `{"text":"from the tool"}`)
	dir := project(t, fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", f.URL+"/v1"),
		mcptest.StdioServer(t, "test"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, &Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: &stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	base := waitListening(t, &stderr)

	resp, err := http.Post(base+"/api/v1/conversations", "application/json", strings.NewReader(`{"title":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	var conv struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&conv)
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/conversations/"+conv.ID+"/messages", strings.NewReader(`{"message":"echo something"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"event: tool_start", "event: tool_end", "Tool said: from the tool", "event: done"} {
		if !strings.Contains(string(stream), want) {
			t.Errorf("run stream lacks %q:\n%s", want, stream)
		}
	}

	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`switchboard_tool_calls_total{outcome="ok",server="test",tool="echo"} 1`,
		`switchboard_model_requests_total{model="default",outcome="ok"} 2`,
		`switchboard_mcp_server_up{server="test"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
}

func waitListening(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`listening on (http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("serve did not start:\n%s", stderr.String())
	return ""
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, &Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: &stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	base := waitListening(t, &stderr)
	resp, err := http.Post(base+"/api/v1/conversations", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var conv struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&conv)
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/conversations/"+conv.ID+"/messages", strings.NewReader(`{"message":"echo"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); !bytes.Contains(b, []byte("event: done")) {
		t.Errorf("run did not complete:\n%s", b)
	}
	resp.Body.Close()
	cancel() // shutdown flushes the spans
	if code := <-done; code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
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
