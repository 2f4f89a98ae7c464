package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	// env comes last: exec keeps the last value of a name, so a caller
	// may name another tool.
	cmd.Env = append(os.Environ(), append([]string{
		"SDK_DIR=" + filepath.Join(nm, "@modelcontextprotocol/sdk"),
		"TS_TOOL=calculator", `TS_ARGS={"expression":"6*7"}`,
	}, env...)...)
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

// runInspector runs the MCP Inspector's CLI against target (a command to
// launch, or a URL) with args, and returns what it printed, or its exit
// error and stderr.
func runInspector(t *testing.T, nm, node, home string, target []string, args ...string) ([]byte, string, error) {
	t.Helper()
	launcher := filepath.Join(nm, "@modelcontextprotocol/inspector/clients/launcher/build/index.js")
	cmd := exec.CommandContext(t.Context(), node, append(append([]string{launcher, "--cli"}, target...), args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"), "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, stderr.String(), err
}

// checkInspector lists and calls tools with the Inspector's CLI against
// target: calculator is listed, and called with 6*7 it answers 42.
func checkInspector(t *testing.T, nm, node, home string, target ...string) {
	t.Helper()
	run := func(args ...string) []byte {
		t.Helper()
		out, stderr, err := runInspector(t, nm, node, home, target, args...)
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
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

// TestInspectorCLIOverStdio lists and calls tools with the MCP Inspector's
// CLI, which launches `switchboard mcp` itself.
func TestInspectorCLIOverStdio(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector")
	dir := t.TempDir()
	checkInspector(t, nm, node, dir,
		"-e", envRunMain+"=1", "-e", "SWITCHBOARD_DATA="+filepath.Join(dir, "data"), "-e", "HOME="+dir,
		os.Args[0], "mcp")
}

// TestInspectorCLIOverHTTP lists and calls tools with the MCP Inspector's
// CLI against a running serve's /mcp over Streamable HTTP, with an API key;
// without the key the server answers 401 and the inspector, which would
// then start OAuth, says authentication is required.
func TestInspectorCLIOverHTTP(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector")
	url, key := serveInProcess(t)
	home := t.TempDir()
	checkInspector(t, nm, node, home, url, "--transport", "http", "--header", "Authorization: Bearer "+key)

	out, stderr, err := runInspector(t, nm, node, home, []string{url, "--transport", "http"}, "--method", "tools/list")
	if err == nil || !strings.Contains(string(out)+stderr, "auth_required") {
		t.Errorf("inspector without a key: %v, printed %s\n%s; want it refused, auth_required", err, out, stderr)
	}
}
