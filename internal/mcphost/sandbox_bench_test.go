//go:build linux

package mcphost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// BenchmarkSandboxedStart measures a server's start (spawn, handshake,
// first tools/list: Pool.Start until ready) unconfined and confined,
// interleaved in one run (A B B A, ...), for server-everything on Node and
// for the Go test server. It reports each median in ms/start. The confined
// shim is this test binary; with SWITCHBOARD_BENCH_EXE set to a built
// switchboard binary it is that, as in production.
func BenchmarkSandboxedStart(b *testing.B) {
	if s := sandbox.Check(); !s.Available {
		b.Skipf("no sandbox here: %s", s.Reason)
	}
	p := requireNPM(b, everythingPkg)
	nm, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		b.Fatal(err)
	}
	gotest := goTestBenchServer(b).cfg
	root := b.TempDir()
	policy := func(read ...string) *sandbox.Policy {
		return &sandbox.Policy{
			Confine: true,
			Read:    append(sandbox.SystemRead(), read...),
			Write:   []string{root},
			Limits:  sandbox.DefaultLimits(),
			Exe:     os.Getenv("SWITCHBOARD_BENCH_EXE"),
		}
	}
	everything := mcphost.ServerConfig{Name: "everything", Command: p.node, Args: []string{p.everythingScript(), "stdio"}}
	for _, srv := range []struct {
		name string
		sc   mcphost.ServerConfig
		read []string
	}{
		{"everything", everything, []string{nm}},
		{"gotest", gotest, []string{filepath.Dir(gotest.Command), filepath.Dir(gotest.Env["SWITCHBOARD_MCPTEST_EVENTS"])}},
	} {
		b.Run(srv.name, func(b *testing.B) {
			boxed := srv.sc
			boxed.Sandbox = policy(srv.read...)
			boxed.Sandbox.Write = append(boxed.Sandbox.Write, srv.read...)
			start := func(sc mcphost.ServerConfig) func() error {
				return func() error {
					pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, benchOptions())
					defer pool.Close()
					pool.Start(b.Context())
					if st := pool.Status()[0]; st.State != mcphost.StateReady {
						return fmt.Errorf("%s: %s", st.State, st.LastError)
					}
					return nil
				}
			}
			sandboxtest.Interleave(b, "start",
				sandboxtest.Variant{Name: "unconfined", Run: start(srv.sc)},
				sandboxtest.Variant{Name: "sandboxed", Run: start(boxed)},
			)
		})
	}
}
