package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func benchCall(b *testing.B, e *env, name, args string) {
	b.Helper()
	tl := e.tools[name]
	req := &tools.CallRequest{Arguments: json.RawMessage(args)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := tl.Call(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res.Text())
		}
	}
}

func BenchmarkReadFile(b *testing.B) {
	e := newEnv(b, nil)
	write(b, filepath.Join(e.root, "src", "f.go"), strings.Repeat("some line of code\n", 200))
	benchCall(b, e, nameReadFile, `{"path":"src/f.go"}`)
}

func BenchmarkGrep(b *testing.B) {
	e := newEnv(b, nil)
	for i := range 500 {
		write(b, filepath.Join(e.root, fmt.Sprintf("d%d", i%20), fmt.Sprintf("f%d.go", i)), strings.Repeat("package x\nfunc f() {}\n", 50))
	}
	benchCall(b, e, nameGrep, `{"pattern":"func \\w+\\(","max_matches":1000}`)
}

func BenchmarkCalculator(b *testing.B) {
	e := newEnv(b, nil)
	benchCall(b, e, nameCalculator, `{"expression":"(3.5 + 2) * 4^2 / 7 + sqrt(2) * max(1, 2, 3)"}`)
}

func BenchmarkTerminal(b *testing.B) {
	e := newEnv(b, nil)
	benchCall(b, e, nameTerminal, `{"command":"true"}`)
}

// BenchmarkTerminalSandbox measures one terminal call of `true` unconfined
// and confined, interleaved in one run (A B B A, ...) so that the
// machine's load hits both alike, beside the floor: /bin/sh -c true
// started by hand. It reports each median in ms/call; ns/op is one round
// of all three. The confined shim here is this test binary; with
// SWITCHBOARD_BENCH_EXE set to a built switchboard binary it is that.
func BenchmarkTerminalSandbox(b *testing.B) {
	if s := sandbox.Check(); !s.Available {
		b.Skipf("no sandbox here: %s", s.Reason)
	}
	root := b.TempDir()
	policy := sandbox.Policy{Exe: os.Getenv("SWITCHBOARD_BENCH_EXE")}
	off := newEnvAt(b, root, &Options{TerminalSandbox: SandboxOff})
	on := newEnvAt(b, root, &Options{TerminalSandbox: SandboxRequired, TerminalPolicy: policy})
	req := &tools.CallRequest{Arguments: json.RawMessage(`{"command":"true"}`)}
	call := func(e *env) func() error {
		return func() error {
			res, err := e.tools[nameTerminal].Call(context.Background(), req)
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error: %s", res.Text())
			}
			return err
		}
	}
	sandboxtest.Interleave(b, "call",
		sandboxtest.Variant{Name: "floor", Run: func() error { return exec.Command("/bin/sh", "-c", "true").Run() }},
		sandboxtest.Variant{Name: "off", Run: call(off)},
		sandboxtest.Variant{Name: "sandboxed", Run: call(on)},
	)
}
