package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/observe"
)

// TestTracingExportsRequestSpans runs a request through a server with
// tracing pointed at a real HTTP collector stand-in, and checks that a
// span export arrives when the tracer is flushed.
func TestTracingExportsRequestSpans(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var bodies int
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.URL.Path)
		bodies += len(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	tr, err := observe.NewTracing(context.Background(), collector.URL+"/v1/traces", "test")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *Options) { o.Tracing = tr })
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, e.ts.URL+"/healthz", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, end := tr.Start(ctx, "agent.run", "agent", "bob")
	end(nil)
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces" || bodies == 0 {
		t.Fatalf("collector got %v (%d bytes); want a span export at /v1/traces", paths, bodies)
	}
	var nilTracing *observe.Tracing
	if _, end := nilTracing.Start(ctx, "x"); end == nil {
		t.Fatal("nil Tracing must give a no-op end")
	}
}
