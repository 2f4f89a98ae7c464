//go:build linux

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// BenchmarkSandboxTrueStart measures the start of each reference npm server
// (Pool.Start until ready: spawn, handshake, first tools/list) through its
// node_modules/.bin link, unconfined and with `sandbox: true` (the policy
// derived from the command), interleaved, reporting each median. With
// SWITCHBOARD_BENCH_EXE set to a built switchboard binary the shim is that
// binary, as in production; otherwise the test binary.
func BenchmarkSandboxTrueStart(b *testing.B) {
	sandboxtest.Require(b)
	nm, node := mcptest.NPM(b, "@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-memory")
	b.Setenv("PATH", filepath.Dir(node)+":"+os.Getenv("PATH"))
	root := b.TempDir()
	cfg := config.Default()
	cfg.Builtin.Roots = []string{root}
	cfg.Data, cfg.Source = filepath.Join(root, ".switchboard"), filepath.Join(root, "switchboard.yaml")
	bin := filepath.Join(nm, ".bin")
	for _, srv := range []struct {
		name string
		s    config.MCPServer
	}{
		{"everything", config.MCPServer{Command: filepath.Join(bin, "mcp-server-everything")}},
		{"filesystem", config.MCPServer{Command: filepath.Join(bin, "mcp-server-filesystem"), Args: []string{root}}},
		{"memory", config.MCPServer{Command: filepath.Join(bin, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(root, "memory.json")}}},
	} {
		b.Run(srv.name, func(b *testing.B) {
			plain := mcpServer(cfg, srv.name, srv.s)
			srv.s.Sandbox = &config.Sandbox{Enabled: true}
			boxed := mcpServer(cfg, srv.name, srv.s)
			boxed.Sandbox.Exe = os.Getenv("SWITCHBOARD_BENCH_EXE")
			start := func(sc mcphost.ServerConfig) func() error {
				return func() error {
					pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, &mcphost.Options{ConnectTimeout: 30 * time.Second, PingInterval: -1})
					defer pool.Close()
					pool.Start(b.Context())
					if st := pool.Status()[0]; st.State != mcphost.StateReady {
						return fmt.Errorf("%s: %s", st.State, st.LastError)
					}
					return nil
				}
			}
			sandboxtest.Interleave(b, "start",
				sandboxtest.Variant{Name: "unconfined", Run: start(plain)},
				sandboxtest.Variant{Name: "sandboxed", Run: start(boxed)},
			)
		})
	}
}
