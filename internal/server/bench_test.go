package server

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkConcurrentRuns measures whole runs through HTTP and SSE: 50
// conversations at once, each turn with the real agent runtime, an
// instant model that calls one in-process tool and then answers, the real
// tools.Registry, and conversations in SQLite (the agent's history in
// memory). One op is one run: two model steps and one tool call. It reports runs/s, p50 and p99
// latency, and heap in use after the runs.
//
//	go test -run '^$' -bench ConcurrentRuns -benchmem ./internal/server/
func BenchmarkConcurrentRuns(b *testing.B) {
	const conversations = 50
	db := openDB(b)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{newTool("echo")})
	model := instantModel{}
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(string) (agent.Model, error) { return agent.Model{Name: "bench", Provider: model}, nil }, reg, g, nil)
	srv := New(StoresOf(db), rt, reg, g, &Options{RunLog: db, Changes: db, AllowAnonymous: true, Limits: Limits{Requests: -1}})
	e := &env{db: db, reg: reg, srv: srv, ts: newTestServer(b, srv)}
	e.ts.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = conversations
	// Each run gets a fresh conversation, so that every op does the same
	// work instead of carrying a history that grows with b.N.
	convs := make([]string, b.N)
	for i := range convs {
		convs[i] = e.createConversation(b)
	}

	work := make(chan string)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for range conversations {
		wg.Go(func() {
			for c := range work {
				start := time.Now()
				resp := e.openStream(b, context.Background(), c, "go")
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Contains(body, []byte("event: done")) {
					b.Errorf("run did not end with done: %v\n%s", err, body)
				}
				d := time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for _, c := range convs {
		work <- c
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	e.ts.Client().CloseIdleConnections()
}

// instantModel answers at once: a call of the echo tool, then, once the
// tool's result is in, "ok". It records nothing, so memory figures are
// Switchboard's own.
type instantModel struct{}

func (instantModel) Stream(_ context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: "c", Name: "echo", ArgChunks: []string{`{"text":"x"}`}}}}
	if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleTool {
		turn = llmtest.Turn{Text: []string{"ok"}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 1}}
	}
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range llmtest.Events(turn) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}
