//go:build linux

package security

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestKilledSwitchboardLeavesNoChildren: children do not outlive
// Switchboard. It starts a real Switchboard process (this test binary
// running the command, as cmd/switchboard does) serving
// MCP on stdio, with a stdio server and a terminal command running, kills it
// with SIGKILL, and checks in /proc that none of its children survive.
func TestKilledSwitchboardLeavesNoChildren(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		sandboxed bool
		// command is the terminal command; without the sandbox only the
		// direct child has the parent-death signal, so it must exec.
		command string
	}{
		{"sandboxed", true, "sleep %[1]s & sleep %[1]s; wait"},
		{"unsandboxed", false, "exec sleep %[1]s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.sandboxed {
				sandboxtest.Require(t)
			}
			root, node := npmRoot(t, "@modelcontextprotocol/sdk")
			nm := filepath.Join(root, "node_modules")
			script := filepath.Join(root, "hostile", "server.mjs")
			realNM, err := filepath.EvalSymlinks(nm)
			if err != nil {
				t.Fatal(err)
			}
			marker := strconv.Itoa(987700 + os.Getpid()%100)
			if tc.sandboxed {
				marker += "1"
			}
			dir := t.TempDir()
			mode, serverSandbox := "off", "false"
			if tc.sandboxed {
				mode = "required"
				serverSandbox = fmt.Sprintf("{read: [%q, %q]}", filepath.Dir(script), realNM)
			}
			cfg := filepath.Join(dir, "switchboard.yaml")
			writeFile(t, cfg, fmt.Sprintf(`
builtin: {roots: [%q], terminal: {sandbox: %s}}
approvals: {mode: allow-all}
mcpServers:
  hostile: {command: %q, args: [%q, "--marker=%s"], sandbox: %s}
`, dir, mode, node, script, marker, serverSandbox))

			cmd := exec.Command(os.Args[0], "mcp", "--config", cfg, "--data", filepath.Join(dir, "data"))
			cmd.Env = append(os.Environ(), envRunMain+"=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killed := false
			t.Cleanup(func() {
				if !killed {
					_ = cmd.Process.Kill()
				}
				_ = cmd.Wait()
			})
			send := func(v map[string]any) {
				v["jsonrpc"] = "2.0"
				b, _ := json.Marshal(v)
				if _, err := stdin.Write(append(b, '\n')); err != nil {
					t.Fatal(err)
				}
			}
			lines := bufio.NewScanner(stdout)
			send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
				"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"},
			}})
			if !lines.Scan() {
				t.Fatalf("no answer to initialize: %v", lines.Err())
			}
			send(map[string]any{"method": "notifications/initialized"})
			send(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{
				"name": "terminal", "arguments": map[string]any{"command": fmt.Sprintf(tc.command, marker+".5")},
			}})

			// The server's node process and the terminal's sleeps.
			deadline := time.Now().Add(30 * time.Second)
			for len(sandboxtest.ProcessesWith(marker+".5")) == 0 || len(sandboxtest.ProcessesWith("--marker="+marker)) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the server (%v) or the terminal command (%v) never started", sandboxtest.ProcessesWith("--marker="+marker), sandboxtest.ProcessesWith(marker+".5"))
				}
				time.Sleep(20 * time.Millisecond) // polling with a deadline
			}
			before := append(sandboxtest.ProcessesWith(marker+".5"), sandboxtest.ProcessesWith("--marker="+marker)...)

			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
			_ = cmd.Wait()
			deadline = time.Now().Add(5 * time.Second)
			for {
				left := append(sandboxtest.ProcessesWith(marker+".5"), sandboxtest.ProcessesWith("--marker="+marker)...)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after kill -9 of switchboard, children survive: %v (of %v)", left, before)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
