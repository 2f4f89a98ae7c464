package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// serveInProcess runs `switchboard serve` in this process on loopback with
// one user, and returns the /mcp URL and the user's key.
func serveInProcess(t *testing.T) (url, key string) {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	a, err := app.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err = a.AddUser(t.Context(), "interop", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	return clitest.Serve(t, a) + "/mcp", key
}

type tsReport struct {
	ProtocolVersion *string
	SessionID       *string
	Server          struct{ Name string }
	Tools           []string
	Result          struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
}

// runTSClient runs testdata/tsclient.mjs with args and returns its report.
func runTSClient(t *testing.T, nm, node string, env []string, args ...string) tsReport {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, append([]string{"testdata/tsclient.mjs"}, args...)...)
	cmd.Env = append(os.Environ(), append(env,
		"SDK_DIR="+filepath.Join(nm, "@modelcontextprotocol/sdk"),
		"TS_TOOL=calculator", `TS_ARGS={"expression":"6*7"}`)...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("TypeScript SDK client: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("TypeScript SDK client: %v", err)
	}
	var r tsReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("TypeScript SDK client printed %q: %v", out, err)
	}
	return r
}

func checkTSReport(t *testing.T, r tsReport) {
	t.Helper()
	if r.Server.Name != "switchboard" {
		t.Errorf("server name %q, want switchboard", r.Server.Name)
	}
	if !slices.Contains(r.Tools, "calculator") {
		t.Errorf("tools %v, want calculator among them", r.Tools)
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Text != "42" || r.Result.IsError {
		t.Errorf("calculator result %+v, want 42", r.Result)
	}
}

// TestTypeScriptSDKOverHTTP connects the MCP TypeScript SDK's client (as
// Claude Desktop and most hosts use it) to /mcp with an API key. SDK 1.32.2
// speaks at most 2025-11-25, so it gets a session.
func TestTypeScriptSDKOverHTTP(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk")
	url, key := serveInProcess(t)
	r := runTSClient(t, nm, node, nil, "http", url, key)
	checkTSReport(t, r)
	if r.ProtocolVersion == nil || *r.ProtocolVersion != "2025-11-25" {
		t.Errorf("protocol version %v, want 2025-11-25 (the newest the SDK speaks)", r.ProtocolVersion)
	}
	if r.SessionID == nil || *r.SessionID == "" {
		t.Error("no session ID: a 2025-11-25 client keeps a session")
	}
}

// TestTypeScriptSDKOverStdio launches `switchboard mcp` (this binary as
// the command) from the TypeScript SDK's stdio client.
func TestTypeScriptSDKOverStdio(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk")
	dir := t.TempDir()
	r := runTSClient(t, nm, node, []string{envRunMain + "=1", "SWITCHBOARD_DATA=" + filepath.Join(dir, "data"), "HOME=" + dir},
		"stdio", os.Args[0], "mcp")
	checkTSReport(t, r)
}

// TestInspectorCLIOverStdio lists and calls tools with the MCP Inspector's
// CLI, which launches `switchboard mcp` itself.
func TestInspectorCLIOverStdio(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector")
	dir := t.TempDir()
	run := func(args ...string) []byte {
		t.Helper()
		launcher := filepath.Join(nm, "@modelcontextprotocol/inspector/clients/launcher/build/index.js")
		args = append([]string{
			launcher, "--cli",
			"-e", envRunMain + "=1", "-e", "SWITCHBOARD_DATA=" + filepath.Join(dir, "data"), "-e", "HOME=" + dir,
			os.Args[0], "mcp",
		}, args...)
		cmd := exec.CommandContext(t.Context(), node, args...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "MCP_CATALOG_PATH="+filepath.Join(dir, "mcp.json"), "NO_COLOR=1")
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("inspector %v: %v\n%s\n%s", args[2:], err, out, ee.Stderr)
			}
			t.Fatalf("inspector: %v", err)
		}
		return out
	}
	var list struct{ Tools []struct{ Name string } }
	if out := run("--method", "tools/list"); json.Unmarshal(out, &list) != nil {
		t.Fatalf("inspector tools/list printed %q, want JSON", out)
	}
	if !slices.ContainsFunc(list.Tools, func(tl struct{ Name string }) bool { return tl.Name == "calculator" }) {
		t.Errorf("inspector tools/list: %v, want calculator among them", list.Tools)
	}
	out := run("--method", "tools/call", "--tool-name", "calculator", "--tool-arg", "expression=6*7")
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "42" || res.IsError {
		t.Errorf("inspector tools/call printed %s, want 42", out)
	}
}
