//go:build linux

package mcphost_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
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
			variants := []struct {
				name string
				sc   mcphost.ServerConfig
			}{{"unconfined", srv.sc}, {"sandboxed", boxed}}
			took := make([][]time.Duration, len(variants))
			i := 0
			for b.Loop() {
				order := []int{0, 1}
				if i%2 == 1 {
					order = []int{1, 0}
				}
				i++
				for _, k := range order {
					pool := mcphost.NewPool([]mcphost.ServerConfig{variants[k].sc}, benchOptions())
					start := time.Now()
					pool.Start(b.Context())
					took[k] = append(took[k], time.Since(start))
					if st := pool.Status()[0]; st.State != mcphost.StateReady {
						b.Fatalf("%s: %s: %s", variants[k].name, st.State, st.LastError)
					}
					_ = pool.Close()
				}
			}
			for k, v := range variants {
				slices.Sort(took[k])
				b.ReportMetric(took[k][len(took[k])/2].Seconds()*1000, v.name+"-ms/start")
			}
		})
	}
}
