package mcphost_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) {
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	mcptest.MaybeServe()
	maybeProbeRSS() // returns unless BenchmarkLargeResultRSS started this process
	goleak.VerifyTestMain(m)
}

// testOptions are fast options for tests: short backoff, no pings.
func testOptions() *mcphost.Options {
	return &mcphost.Options{
		ConnectTimeout:        10 * time.Second,
		PingInterval:          -1,
		RestartBackoffInitial: 20 * time.Millisecond,
		RestartBackoffMax:     100 * time.Millisecond,
	}
}

// startPool starts a pool and closes it when the test ends.
func startPool(t *testing.T, servers []mcphost.ServerConfig, opts *mcphost.Options) *mcphost.Pool {
	t.Helper()
	if opts == nil {
		opts = testOptions()
	}
	p := mcphost.NewPool(servers, opts)
	p.Start(t.Context())
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// findTool returns the named tool of the pool or fails the test.
func findTool(t *testing.T, p *mcphost.Pool, name string) tools.Tool {
	t.Helper()
	for _, tl := range p.Tools() {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q among %v", name, toolNames(p.Tools()))
	return nil
}

func toolNames(ts []tools.Tool) []string {
	var out []string
	for _, tl := range ts {
		out = append(out, tl.Info().Name)
	}
	return out
}

type toolT = tools.Tool

func call(t *testing.T, tl tools.Tool, args any) (*tools.Result, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Call(context.Background(), &tools.CallRequest{Arguments: b})
}

// statusOf returns the named server's status.
func statusOf(t *testing.T, p *mcphost.Pool, name string) mcphost.Status {
	t.Helper()
	for _, st := range p.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %q", name)
	return mcphost.Status{}
}

// waitState polls until the server reaches state.
func waitState(t *testing.T, p *mcphost.Pool, name string, state mcphost.State) mcphost.Status {
	t.Helper()
	var st mcphost.Status
	if !mcptest.Poll(15*time.Second, func() bool { st = statusOf(t, p, name); return st.State == state }) {
		t.Fatalf("server %q never reached %s; last status %+v", name, state, st)
	}
	return st
}
