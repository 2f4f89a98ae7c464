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
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
)

// mcpProc is a real Switchboard process (this test binary run as the
// switchboard command) serving MCP on stdio, as a client on the same
// machine would start it.
type mcpProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *clitest.Buffer
	lines  chan string // stdout, one JSON-RPC message a line; closed at EOF
	nextID int
}

// startMCP starts `switchboard mcp` with cfg and the data directory under
// dir; extra are handed to it as descriptors 3, 4, ... (without
// close-on-exec, as a careless parent would), and it is stopped when the
// test ends.
func startMCP(t *testing.T, dir, cfg string, extra ...*os.File) *mcpProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp", "--config", cfg, "--data", filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	cmd.Dir = dir
	cmd.ExtraFiles = extra
	stderr := &clitest.Buffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &mcpProc{cmd: cmd, stdin: stdin, stderr: stderr, lines: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-done
	})
	p.request(t, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "attacker", "version": "0"},
	})
	p.send(t, map[string]any{"method": "notifications/initialized"})
	return p
}

func (p *mcpProc) send(t *testing.T, v map[string]any) {
	t.Helper()
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("writing to switchboard: %v", err)
	}
}

// request sends one request and returns the raw response, skipping the
// notifications in between.
func (p *mcpProc) request(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	p.nextID++
	id := p.nextID
	p.send(t, map[string]any{"id": id, "method": method, "params": params})
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("switchboard closed stdout before answering %s; stderr:\n%s", method, p.stderr.String())
			}
			var m struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal([]byte(l), &m) == nil && m.ID != nil && *m.ID == id {
				return json.RawMessage(l)
			}
		case <-timeout:
			t.Fatalf("no answer to %s within 60s", method)
		}
	}
}

// call calls a tool and returns the text of its result, or of the error.
func (p *mcpProc) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	raw := p.request(t, "tools/call", map[string]any{"name": tool, "arguments": args})
	var r struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	if r.Error != nil {
		return "rpc error: " + r.Error.Message
	}
	var b strings.Builder
	if r.Result.IsError {
		b.WriteString("tool error: ")
	}
	for _, c := range r.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// hostileServer returns node, the hostile server's script and the read
// paths node needs in a sandbox.
func hostileServer(t *testing.T) (node, script string, read []string) {
	t.Helper()
	root, node := npmRoot(t, "@modelcontextprotocol/sdk")
	script = filepath.Join(root, "hostile", "server.mjs")
	realNM, err := filepath.EvalSymlinks(filepath.Join(root, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	return node, script, []string{filepath.Dir(script), realNM}
}

// yamlList formats paths as a YAML flow list.
func yamlList(paths ...string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
