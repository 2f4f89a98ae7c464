//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestSandboxInDoctorAndServers checks that doctor and servers show each
// stdio server's sandbox and the terminal's, and that doctor names the
// variables a server gets without their values.
func TestSandboxInDoctorAndServers(t *testing.T) {
	sandboxtest.Require(t)
	boxed := mcptest.StdioServer(t, "boxed")
	boxed.Env["API_TOKEN"] = "t0ken-value"
	plain := mcptest.StdioServer(t, "plain")
	exeDir := filepath.Dir(boxed.Command)
	events := filepath.Dir(boxed.Env[mcptest.EnvEvents])
	b, _ := json.Marshal(map[string]any{
		"command": boxed.Command, "args": boxed.Args, "env": boxed.Env,
		"sandbox": map[string]any{"read": []string{exeDir}, "write": []string{events}},
	})
	dir := project(t, "  boxed: "+string(b)+"\n", plain)

	r := run(t, dir, nil, "doctor")
	t.Logf("doctor:\n%s", r.stdout)
	if r.code != 0 {
		t.Fatalf("doctor: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"sandbox: Landlock ABI",
		"terminal: sandbox read system, " + dir,
		"  sandbox: read system, " + dir, // boxed: the roots (the config's directory)...
		exeDir + "; write " + events + "; network off",
		"  sandbox: off", // plain
		"API_TOKEN",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "t0ken-value") {
		t.Errorf("doctor shows a variable's value:\n%s", r.stdout)
	}

	r = run(t, dir, nil, "servers")
	if r.code != 0 {
		t.Fatalf("servers: exit %d\n%s", r.code, r.stderr)
	}
	words := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(l); len(f) >= 8 && f[len(f)-1] == "-" { // no last error
			words[f[0]] = f[len(f)-2]
		}
	}
	if words["boxed"] != "on" || words["plain"] != "off" || words["builtin"] != "on" {
		t.Errorf("SANDBOX column: %v\n%s", words, r.stdout)
	}
}

// TestDoctorShowsDerivedSandboxPaths checks that with `sandbox: true`
// alone an npm server starts, and that doctor and servers list the read
// paths derived from its command with why each is there.
func TestDoctorShowsDerivedSandboxPaths(t *testing.T) {
	sandboxtest.Require(t)
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/server-memory")
	// The script's #! line asks for node on PATH: Node 22 from testdata.
	t.Setenv("PATH", filepath.Dir(node)+":"+os.Getenv("PATH"))
	dir := t.TempDir()
	cfg := "mcpServers:\n  memory: {command: " + filepath.Join(nm, ".bin", "mcp-server-memory") + ", sandbox: true, env: {MEMORY_FILE_PATH: " + filepath.Join(dir, "memory.json") + "}}\n"
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "doctor")
	if r.code != 0 {
		t.Fatalf("doctor: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := "    read " + nm + ": the command's package (mcp-server-memory is " + filepath.Join(nm, "@modelcontextprotocol", "server-memory", "dist", "index.js") + ")"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("doctor's output lacks %q:\n%s", want, r.stdout)
	}
	r = run(t, dir, nil, "servers")
	if r.code != 0 || !strings.Contains(r.stdout, "Sandbox paths derived") || !strings.Contains(r.stdout, want) {
		t.Errorf("servers (exit %d) does not list the derived paths:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
