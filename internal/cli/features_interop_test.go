package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestInspectorCLIPromptsAndResources runs `serve` with server-everything
// and two users' API keys, and uses the MCP Inspector's CLI on /mcp: alice,
// whose permissions cover the server, lists and gets its prompts and reads
// its resources; bob, allowed only the calculator, sees none and is
// refused.
func TestInspectorCLIPromptsAndResources(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector", "@modelcontextprotocol/server-everything")
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.MCPServers = map[string]config.MCPServer{"everything": {
		Command: node, Args: []string{filepath.Join(nm, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"},
	}}
	a, err := app.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, alice, err := a.AddUser(t.Context(), "alice", false, []string{"everything__*"})
	if err != nil {
		t.Fatal(err)
	}
	_, bob, err := a.AddUser(t.Context(), "bob", false, []string{"calculator"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, up := a.Registry().Lookup("everything__echo"); !up {
		t.Fatalf("server-everything not connected: %+v", a.Servers())
	}
	url := clitest.Serve(t, a) + "/mcp"
	home := t.TempDir()
	inspect := func(key string, args ...string) ([]byte, string, error) {
		t.Helper()
		return runInspector(t, nm, node, home, []string{url, "--transport", "http", "--header", "Authorization: Bearer " + key}, args...)
	}
	ok := func(key string, args ...string) []byte {
		t.Helper()
		out, stderr, err := inspect(key, args...)
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		return out
	}

	var prompts struct{ Prompts []struct{ Name string } }
	if out := ok(alice, "--method", "prompts/list"); json.Unmarshal(out, &prompts) != nil {
		t.Fatalf("prompts/list printed %q, want JSON", out)
	}
	if !slices.ContainsFunc(prompts.Prompts, func(p struct{ Name string }) bool { return p.Name == "everything__args-prompt" }) {
		t.Errorf("alice's prompts %v, want everything__args-prompt among them", prompts.Prompts)
	}
	out := ok(alice, "--method", "prompts/get", "--prompt-name", "everything__args-prompt", "--prompt-args", "city=Lisbon")
	if !strings.Contains(string(out), "Lisbon") {
		t.Errorf("prompts/get printed %s, want the expanded prompt naming Lisbon", out)
	}
	var resources struct{ Resources []struct{ URI string } }
	if out := ok(alice, "--method", "resources/list"); json.Unmarshal(out, &resources) != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list printed %q, want resources", out)
	}
	uri := resources.Resources[0].URI
	if !strings.HasPrefix(uri, "switchboard://everything/") {
		t.Errorf("resource URI %q, want it behind switchboard://everything/", uri)
	}
	var read struct {
		Contents []struct{ URI, Text, Blob string }
	}
	if out := ok(alice, "--method", "resources/read", "--uri", uri); json.Unmarshal(out, &read) != nil || len(read.Contents) == 0 || read.Contents[0].Text+read.Contents[0].Blob == "" {
		t.Errorf("resources/read %s printed %s, want its contents", uri, out)
	}

	prompts.Prompts, resources.Resources = nil, nil
	if out := ok(bob, "--method", "prompts/list"); json.Unmarshal(out, &prompts) != nil || len(prompts.Prompts) != 0 {
		t.Errorf("bob's prompts/list printed %s, want none", out)
	}
	if out := ok(bob, "--method", "resources/list"); json.Unmarshal(out, &resources) != nil || len(resources.Resources) != 0 {
		t.Errorf("bob's resources/list printed %s, want none", out)
	}
	if out, stderr, err := inspect(bob, "--method", "prompts/get", "--prompt-name", "everything__args-prompt", "--prompt-args", "city=Lisbon"); err == nil || !strings.Contains(string(out)+stderr, "permissions do not include") {
		t.Errorf("bob's prompts/get: %v, printed %s\n%s; want a refusal naming his permissions", err, out, stderr)
	}
	if out, stderr, err := inspect(bob, "--method", "resources/read", "--uri", uri); err == nil || !strings.Contains(string(out)+stderr, "permissions do not cover") {
		t.Errorf("bob's resources/read: %v, printed %s\n%s; want a refusal naming his permissions", err, out, stderr)
	}
}
