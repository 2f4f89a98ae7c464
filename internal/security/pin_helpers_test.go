package security

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
)

// pinNode returns Node 22 and the rugpull server script, or skips the test
// when the npm packages are not installed (fails under CI, which installs
// them with .ci/npm-install).
func pinNode(t *testing.T) (node, script string) {
	t.Helper()
	root, node := npmRoot(t, "@modelcontextprotocol/sdk")
	return node, filepath.Join(root, "servers", "rugpull.mjs")
}

// pinRun runs the switchboard command line in dir as the local user
// admin-ann, as a user would.
func pinRun(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	return switchboardEnv(t, dir, map[string]string{"USER": "admin-ann"}, args...)
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
		var req modelRequest
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
			clitest.StreamText(w, fmt.Sprintf("The tool said: %v", last.Content))
		case add != "":
			clitest.StreamToolCall(w, "call_1", add, `{"a":2,"b":3}`)
		default:
			clitest.StreamText(w, "I have no tool to add numbers; my tools: "+strings.Join(names, ", "))
		}
	}))
	t.Cleanup(m.Close)
	return m
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
	writeFile(t, descFile, desc)
	extra := ""
	if pinning != "" {
		extra = ", pinning: " + pinning
	}
	cfg := modelConfig(model.URL) + fmt.Sprintf(`approvals: {mode: allow-all}
mcpServers:
  rug: {command: %q, args: [%q, %q], sandbox: false%s}
`, node, script, descFile, extra)
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), cfg)
	return dir, descFile
}
