package mcpserve_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkCall measures tools/call through the gateway to an in-process
// tool, with 16 concurrent callers on one session, over each transport
// (http: a 2025-11-25 session, where tools/call takes the direct path;
// http-2026: stateless requests, through the SDK), so that the gateway's
// own cost per call is visible. "http-limited" adds the gate's
// token-bucket limiter (a limit never reached), so the cost of the limit
// on the hot path shows against "http":
//
//	go test -run '^$' -bench BenchmarkCall -benchtime 3s ./internal/mcpserve/
func BenchmarkCall(b *testing.B) {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("echo", readOnly, nil)})
	for _, transport := range []string{"http", "http-limited", "http-2026", "stdio"} {
		b.Run(transport, func(b *testing.B) {
			g := gate.New(&gate.Options{Audit: discardAudit{}})
			if transport == "http-limited" {
				g = gate.New(&gate.Options{Limiter: gate.NewBuckets(1e9, 1e9, nil), Audit: discardAudit{}})
				transport = "http"
			}
			srv := mcpserve.New(reg, g, nil)
			defer srv.Close()
			var cs *mcp.ClientSession
			switch transport {
			case "http":
				cs = connectHTTP(b, serveHTTP(b, srv).URL, "bench", nil)
			case "http-2026":
				cs = connectHTTPVersion(b, serveHTTP(b, srv).URL, "bench", "2026-07-28", nil)
			default:
				cs = connectStdio(b, srv, nil)
			}
			args := map[string]any{"text": "hello"}
			b.ResetTimer()
			var wg sync.WaitGroup
			n := b.N
			work := make(chan struct{}, n)
			for range n {
				work <- struct{}{}
			}
			close(work)
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range work {
						if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// discardAudit is a store.AuditLog that records nothing, so the benchmark
// measures the gateway rather than a test fake's lock.
type discardAudit struct{}

func (discardAudit) BeginAudit(context.Context, store.AuditRecord) (string, error) { return "", nil }
func (discardAudit) FinishAudit(context.Context, string, store.AuditResult) error  { return nil }
