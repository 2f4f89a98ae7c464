package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
