package mcpserve_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkGuestCall measures tools/call of a tool that asks nothing on a
// 2025-11-25 session created by replica A, every request after initialize
// sent to replica B, which serves it as a guest: "stateless" without
// relayed answers (the guest the gateway had before), "relay" with them
// (a stateful guest whose request IDs are prefixed). 16 concurrent
// callers:
//
//	go test -run '^$' -bench BenchmarkGuestCall -benchtime 2s ./internal/mcpserve/
func BenchmarkGuestCall(b *testing.B) {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("echo", readOnly, nil)})
	key := []byte("a key both replicas are configured with")
	for _, mode := range []string{"stateless", "relay"} {
		b.Run(mode, func(b *testing.B) {
			opts := func() *mcpserve.Options {
				o := &mcpserve.Options{SessionKey: key}
				if mode == "relay" {
					o.Answers, o.Changes = noAnswers{}, &store.Feed{}
				}
				return o
			}
			g := gate.New(&gate.Options{Audit: discardAudit{}})
			a, bb := mcpserve.New(reg, g, opts()), mcpserve.New(reg, g, opts())
			defer a.Close()
			defer bb.Close()
			urlA, urlB := serveHTTP(b, a).URL, serveHTTP(b, bb).URL
			// initialize on A, everything after on B.
			client := &http.Client{Transport: &headerTransport{caller: "bench", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.Header.Get("Mcp-Session-Id") != "" {
					r = r.Clone(r.Context())
					r.URL.Host = strings.TrimPrefix(urlB, "http://")
				}
				return http.DefaultTransport.RoundTrip(r)
			})}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(),
				&mcp.StreamableClientTransport{Endpoint: urlA, HTTPClient: client, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"text": "hello"}
			b.ResetTimer()
			var wg sync.WaitGroup
			work := make(chan struct{}, b.N)
			for range b.N {
				work <- struct{}{}
			}
			close(work)
			for range 16 {
				wg.Go(func() {
					for range work {
						if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// noAnswers is a store.MCPAnswers that relays nothing: the benchmark's
// calls ask no questions.
type noAnswers struct{}

func (noAnswers) PutMCPAnswer(context.Context, store.MCPAnswer) error { return nil }
func (noAnswers) TakeMCPAnswers(context.Context, string, string) ([]store.MCPAnswer, error) {
	return nil, nil
}
