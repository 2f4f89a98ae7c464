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
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// The helpers every file of the suite shares: running the command line,
// starting `serve`, calling it over HTTP and MCP, finding the npm clients,
// and the fake model on the OpenAI wire. Each control's own fixtures stay
// in its files.

// writeFile writes text to path or fails the test.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// project is a directory with a switchboard.yaml holding cfg.
func project(t *testing.T, cfg string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), cfg)
	return dir
}

// npmRoot returns testdata/npm and Node 22 in it, or skips the test when
// Node or pkg is not installed (see mcptest.NPM).
func npmRoot(t *testing.T, pkg string) (root, node string) {
	t.Helper()
	nm, node := mcptest.NPM(t, pkg)
	return filepath.Dir(nm), node
}

// cliResult is the outcome of one switchboard command.
type cliResult struct {
	code           int
	stdout, stderr string
}

// switchboard runs one command in dir with an empty environment, as a
// separate invocation of the binary would (its own App and store handle).
func switchboard(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	return switchboardEnv(t, dir, nil, args...)
}

// switchboardEnv is switchboard with env as the whole environment.
func switchboardEnv(t *testing.T, dir string, env map[string]string, args ...string) cliResult {
	t.Helper()
	var out, errb clitest.Buffer
	code := cli.Run(t.Context(), &cli.Env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir,
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
	stderr *clitest.Buffer
}

// serve starts `switchboard serve` in dir, with extra flags if any; the
// test's cleanup stops it.
func serve(t *testing.T, dir string, extra ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &served{stderr: &clitest.Buffer{}}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cli.Run(ctx, &cli.Env{
			Args: append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...), Stdout: io.Discard, Stderr: s.stderr,
			Getenv: func(string) string { return "" }, Cwd: dir,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	s.base = clitest.Listening(t, "serve", s.stderr, exited)
	return s
}

// httpCall sends one request with key as bearer ("" sends no
// Authorization) and returns the status and body. A string body is sent
// as it is, any other non-nil body as JSON.
func httpCall(t *testing.T, method, url, key string, body any) (int, []byte) {
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
	req, err := http.NewRequestWithContext(t.Context(), method, url, r)
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
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// call sends a request to the server with key as bearer and returns the
// status and body.
func (s *served) call(t *testing.T, method, path, key string, body any) (int, string) {
	t.Helper()
	code, b := httpCall(t, method, s.base+path, key, body)
	return code, string(b)
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

// mcpConnect connects an MCP client to endpoint with key as bearer ("" for
// none); the session closes when the test ends.
func mcpConnect(t *testing.T, endpoint, key string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "security-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{key}}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// mcpSession connects an MCP client to the server's /mcp with key.
func (s *served) mcpSession(t *testing.T, key string) (*mcp.ClientSession, error) {
	t.Helper()
	return mcpConnect(t, s.base+"/mcp", key)
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

// modelRequest is the part of an OpenAI chat-completions request the fake
// models read.
type modelRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
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
		var req modelRequest
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
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			clitest.Completion(w, "You said: "+said)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		clitest.StreamText(w, "You said: "+said)
	}))
	t.Cleanup(f.Close)
	return f
}

// modelConfig is the models section pointing at a fake model served at
// url.
func modelConfig(url string) string {
	return fmt.Sprintf("models:\n  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", url+"/v1")
}
