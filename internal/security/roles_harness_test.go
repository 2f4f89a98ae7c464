package security

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli"
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

// project is a directory with a switchboard.yaml holding cfg.
func project(t *testing.T, cfg string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cliResult is the outcome of one switchboard command.
type cliResult struct {
	code           int
	stdout, stderr string
}

// switchboard runs one command in dir, as a separate invocation of the
// binary would (its own App and store handle).
func switchboard(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	var out, errb syncBuffer
	code := cli.Run(t.Context(), &cli.Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Cwd: dir,
	})
	return cliResult{code, out.String(), errb.String()}
}

// addUser runs `users add` and returns the key it printed.
func addUser(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := switchboard(t, dir, append([]string{"users", "add"}, args...)...)
	if r.code != 0 {
		t.Fatalf("users add %v: exit %d\n%s", args, r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// served is a running `switchboard serve` on a loopback port.
type served struct {
	base   string
	stderr *syncBuffer
	cancel context.CancelFunc
	done   chan int
}

// serve starts `switchboard serve` in dir; the test's cleanup stops it.
func serve(t *testing.T, dir string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &served{stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- cli.Run(ctx, &cli.Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: s.stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	t.Cleanup(func() {
		s.cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	re := regexp.MustCompile(`listening on (http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
			return s
		}
		select {
		case code := <-s.done:
			t.Fatalf("serve exited with %d:\n%s", code, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start:\n%s", s.stderr.String())
	return nil
}

// call sends a request with key as bearer ("" sends no Authorization) and
// returns the status and body.
func (s *served) call(t *testing.T, method, path, key string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// bearer adds an Authorization header to every request.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects an MCP client to the server's /mcp with key.
func (s *served) mcpSession(t *testing.T, key string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "security-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{key}}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// toolNames lists the tools a session sees.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// eventually retries cond until it holds or 3 seconds pass. Permission
// changes reach a running server within its users check interval (250 ms).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 3s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// fakeModel is an OpenAI chat-completions server that answers only from
// what it is shown: it repeats the last user message ("You said: ...").
// While hold is not nil, a request waits on it before answering.
type fakeModel struct {
	*httptest.Server
	arrived chan struct{} // one value per request, when it arrives (buffered)
	hold    chan struct{}
}

func newFakeModel(t *testing.T, hold chan struct{}) *fakeModel {
	f := &fakeModel{arrived: make(chan struct{}, 64), hold: hold}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		select {
		case f.arrived <- struct{}{}:
		default:
		}
		if f.hold != nil {
			select {
			case <-f.hold:
			case <-r.Context().Done():
				return
			}
		}
		var said string
		for _, m := range req.Messages {
			if m.Role == "user" {
				said = fmt.Sprint(m.Content)
			}
		}
		answer, _ := json.Marshal("You said: " + said)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`, answer)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", answer)
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(f.Close)
	return f
}

// modelConfig is the models section pointing at f.
func modelConfig(f *fakeModel) string {
	return fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", f.URL+"/v1")
}
