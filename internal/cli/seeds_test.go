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
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// scriptedModel is an OpenAI-compatible server that answers each request,
// streamed or not, with the next text of its script: a model without native
// tool calling that writes <tool_code> blocks.
type scriptedModel struct {
	*httptest.Server
	mu     sync.Mutex
	script []string
	bodies []string
}

func newScriptedModel(t *testing.T, script ...string) *scriptedModel {
	m := &scriptedModel{script: script}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &req)
		m.mu.Lock()
		m.bodies = append(m.bodies, string(body))
		if len(m.script) == 0 {
			m.mu.Unlock()
			http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusInternalServerError)
			return
		}
		reply := m.script[0]
		m.script = m.script[1:]
		m.mu.Unlock()
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			clitest.Completion(w, reply)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		clitest.StreamText(w, reply)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *scriptedModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

// npmScript returns node and the path of an installed npm package's
// script, or skips (fails under CI) when .ci/npm-install has not run.
func npmScript(t *testing.T, pkg, script string) (node, path string) {
	t.Helper()
	nm, node := mcptest.NPM(t, pkg)
	return node, filepath.Join(nm, pkg, script)
}

// TestSeedReadMCPJSON is the desktop chat's flow, end to end through
// `switchboard chat -p`: a text-mode model and the npm filesystem server.
// The relative path fails at the server, the model asks for the full path,
// the user gives it, and the file's content reaches the model and the answer.
func TestSeedReadMCPJSON(t *testing.T) {
	node, fs := npmScript(t, "@modelcontextprotocol/server-filesystem", "dist/index.js")
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	// The file is one level down: server-filesystem resolves a relative
	// path against the directory it serves, so "mcp.json" fails because
	// the file is not there, not because the host changed the server's
	// directories (it offers no roots unless configured to).
	if err := os.MkdirAll(filepath.Join(project, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(project, ".cursor", "mcp.json")
	if err := os.WriteFile(full, []byte(`{"mcpServers": {"weather": {"command": "weather-mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(path string) string {
		return `<tool_code>{"tool_name": "files__read_text_file", "arguments": {"path": "` + path + `"}}</tool_code>`
	}
	model := newScriptedModel(t,
		"yes", call("mcp.json"), "It seems I need the complete path. Could you please provide it?",
		"yes", call(full), "mcp.json configures one MCP server, weather, started with weather-mcp.",
	)
	cfg := fmt.Sprintf(`mcpServers:
  files: {command: %q, args: [%q, %q]}
models:
  local: {provider: openai, baseURL: %q, model: small, toolMode: text}
`, node, fs, project, model.URL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(t, dir, nil, "chat", "-p", "read mcp.json", "--conversation", "seed")
	if r.code != 0 || !strings.Contains(r.stdout, "complete path") {
		t.Fatalf("first turn: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, nil, "chat", "-p", full, "--conversation", "seed")
	if r.code != 0 || !strings.Contains(r.stdout, "weather") {
		t.Fatalf("second turn: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	reqs := model.requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6 (router, call, answer; twice)", len(reqs))
	}
	// The model saw the server's refusal of the relative path, then the content.
	if !strings.Contains(reqs[2], `\u003ctool_result name=\"files__read_text_file\" error=\"true\"`) {
		t.Errorf("the answer after the relative path did not see the server's error:\n%s", reqs[2])
	}
	if !strings.Contains(reqs[5], `weather-mcp`) {
		t.Errorf("the final request lacks the file's content:\n%s", reqs[5])
	}
	// Text mode: no native tools were sent, the manifest was in the prompt.
	if strings.Contains(reqs[1], `"tools":`) || !strings.Contains(reqs[1], "tool_code") {
		t.Errorf("text-mode request carries native tools or lacks the manifest:\n%s", reqs[1])
	}
}
