//go:build linux

package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestSandboxTrueStartsServers starts, with `sandbox: true` and no other
// sandbox setting, the reference npm servers (through their
// node_modules/.bin links, whose #! line asks for node on PATH), a node
// script, a Python server as a script and as a module, and a Go binary;
// each lists its tools and answers a call. Nothing names where the
// packages, Node or Python live: the policy derives them.
func TestSandboxTrueStartsServers(t *testing.T) {
	sandboxtest.Require(t)
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-memory")
	repo := filepath.Dir(filepath.Dir(nm))
	repo = filepath.Dir(repo)
	requireReachable(t, nm)
	python := reachablePython(t)
	// The #! lines say `env node`: Node 22 from testdata comes first on
	// PATH, so the test does not depend on the machine's node.
	t.Setenv("PATH", filepath.Dir(node)+":"+filepath.Dir(python)+":"+os.Getenv("PATH"))

	root := t.TempDir()
	memory := filepath.Join(root, "memory.json")
	goServer := mcptest.StdioServer(t, "go")
	goServer.Env[mcptest.EnvEvents] = filepath.Join(root, "events")
	goEnv, _ := json.Marshal(goServer.Env)
	bin := filepath.Join(nm, ".bin")
	// npx's cache as `npx -y @modelcontextprotocol/server-memory` leaves
	// it, with the packages of testdata (nothing downloads in tests).
	npmCache := filepath.Join(t.TempDir(), "npm")
	npxDir := filepath.Join(npmCache, "_npx", "0123456789abcdef")
	if err := os.MkdirAll(npxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(npxDir, "package.json"), []byte(`{"_npx":{"packages":["@modelcontextprotocol/server-memory"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nm, filepath.Join(npxDir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cfgText := `
builtin: {roots: [` + root + `]}
mcpServers:
  everything: {command: ` + filepath.Join(bin, "mcp-server-everything") + `, sandbox: true}
  filesystem: {command: ` + filepath.Join(bin, "mcp-server-filesystem") + `, args: [` + root + `], sandbox: true}
  memory: {command: ` + filepath.Join(bin, "mcp-server-memory") + `, env: {MEMORY_FILE_PATH: ` + memory + `}, sandbox: true}
  npx: {command: npx, args: [-y, "@modelcontextprotocol/server-memory"], env: {npm_config_cache: ` + npmCache + `, MEMORY_FILE_PATH: ` + filepath.Join(root, "npx.json") + `}, sandbox: true}
  noisy: {command: node, args: [` + filepath.Join(repo, "testdata", "npm", "servers", "noisy.mjs") + `], sandbox: true}
  pyscript: {command: python3, args: [` + filepath.Join(repo, "testdata", "python", "server.py") + `], sandbox: true}
  pymodule: {command: python3, args: [-m, echoserver], cwd: ` + filepath.Join(repo, "testdata", "python") + `, sandbox: true}
  go: {command: ` + goServer.Command + `, args: ["-test.run=^$"], env: ` + string(goEnv) + `, sandbox: true}
`
	path := filepath.Join(root, "switchboard.yaml")
	if err := os.WriteFile(path, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: path, Cwd: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("loading the config: %v", err)
	}
	// One pool per server, so each tool is found by its own name.
	pools := map[string]*mcphost.Pool{}
	for name, s := range cfg.MCPServers {
		sc := mcpServer(cfg, name, s)
		if sc.Sandbox == nil || !sc.Sandbox.Confine {
			t.Fatalf("server %s is not confined", name)
		}
		t.Logf("%s: %s", name, sc.Sandbox)
		for _, l := range sc.Sandbox.Details() {
			t.Logf("  %s", l)
		}
		pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, &mcphost.Options{ConnectTimeout: 30 * time.Second, PingInterval: -1})
		pool.Start(t.Context())
		t.Cleanup(func() { _ = pool.Close() })
		pools[name] = pool
	}

	calls := []struct {
		server, tool string
		args         map[string]any
		want         string
	}{
		{"everything", "echo", map[string]any{"message": "hi"}, "Echo: hi"},
		{"filesystem", "list_allowed_directories", nil, root},
		{"memory", "create_entities", map[string]any{"entities": []map[string]any{{"name": "sandbox", "entityType": "test", "observations": []string{"derived"}}}}, "sandbox"},
		{"npx", "read_graph", nil, "entities"},
		{"noisy", "echo", map[string]any{"message": "hi"}, "Echo: hi"},
		{"pyscript", "echo", map[string]any{"message": "hi"}, "Echo: hi"},
		{"pymodule", "echo", map[string]any{"message": "hi"}, "Echo: hi"},
		{"go", "echo", map[string]any{"text": "hi"}, "hi"},
	}
	for _, c := range calls {
		t.Run(c.server, func(t *testing.T) {
			pool := pools[c.server]
			st := waitReady(t, pool, c.server)
			if st.Tools == 0 {
				t.Fatalf("%s lists no tools", c.server)
			}
			tl := toolOf(t, pool, c.tool)
			b, _ := json.Marshal(c.args)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := tl.Call(ctx, &tools.CallRequest{Arguments: b})
			if err != nil {
				t.Fatalf("calling %s: %v", c.tool, err)
			}
			if res.IsError || !strings.Contains(res.Text(), c.want) {
				t.Errorf("%s answered %q (error %v), want it to contain %q", c.tool, res.Text(), res.IsError, c.want)
			}
		})
	}
	if b, err := os.ReadFile(memory); err != nil || !strings.Contains(string(b), "derived") {
		t.Errorf("server-memory did not write its file in the write path: %q, %v", b, err)
	}
}

// waitReady waits for the named server to be ready, failing with its last
// error (which names what the sandbox refused) when it does not get there.
func waitReady(t *testing.T, p *mcphost.Pool, name string) mcphost.Status {
	t.Helper()
	var st mcphost.Status
	ok := mcptest.Poll(30*time.Second, func() bool {
		for _, s := range p.Status() {
			if s.Name == name {
				st = s
			}
		}
		return st.State == mcphost.StateReady || st.State == mcphost.StateFailed
	})
	if !ok || st.State != mcphost.StateReady {
		t.Fatalf("server %s is %s: %s", name, st.State, st.LastError)
	}
	return st
}

func toolOf(t *testing.T, p *mcphost.Pool, name string) tools.Tool {
	t.Helper()
	var names []string
	for _, tl := range p.Tools() {
		n := tl.Info().Name
		names = append(names, n)
		if n == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

// requireReachable fails (in CI) or skips when path cannot be reached by
// others: run as root, the sandbox's user is nobody on the host, so a
// checkout below a directory such as a 0700 /root or mktemp -d is out of
// its reach whatever the policy says.
func requireReachable(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	p := &sandbox.Policy{Confine: true, Derived: []sandbox.Grant{{Path: path, Why: "test"}}}
	if d := p.Details(); len(d) == 1 && strings.Contains(d[0], "out of reach") {
		msg := "run as root, the sandbox cannot reach the npm packages: " + d[0]
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// reachablePython returns a python3 that the sandbox's user can reach: run
// as root, one below /root (pyenv) cannot be, so /usr/bin's is preferred.
func reachablePython(t *testing.T) string {
	t.Helper()
	for _, c := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on this machine")
	}
	requireReachable(t, p)
	return p
}
