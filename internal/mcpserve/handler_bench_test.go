package mcpserve_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkHandlerCall is one tools/call on an initialized 2025-11-25
// session, served by the gateway's handler in this goroutine: no network,
// no client, an in-process echo tool and an audit log that keeps nothing.
// Its cpu-ns/op is the gateway's own CPU per call (request parsing, the
// session check, the gate, the registry, the answer), and with -benchmem
// its allocations, so that a change to the direct path can be measured
// repeatably on a busy machine:
//
//	go test -run '^$' -bench HandlerCall -benchmem ./internal/mcpserve/
func BenchmarkHandlerCall(b *testing.B) {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("echo", readOnly, nil)})
	srv := mcpserve.New(reg, gate.New(&gate.Options{Audit: discardAudit{}}), nil)
	defer srv.Close()
	h := srv.Handler()
	init := postAs(context.Background(), h, "", initializeBody)
	id := init.Header().Get("Mcp-Session-Id")
	if id == "" {
		b.Fatalf("initialize: %d %s", init.Code, init.Body)
	}
	postAs(context.Background(), h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	// The SDK handles notifications/initialized after answering it, so
	// the direct path may start a moment later.
	deadline := time.Now().Add(5 * time.Second)
	for postAs(context.Background(), h, id, call).Header().Get("Content-Type") != "application/json" {
		if time.Now().After(deadline) {
			b.Fatal("the direct path never took a call of the initialized session")
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := observe.ProcessCPU()
	for b.Loop() {
		postAs(context.Background(), h, id, call)
	}
	// The process's CPU per call (GC included), which a loaded machine
	// inflates far less than the wall time of ns/op.
	b.ReportMetric(float64((observe.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
