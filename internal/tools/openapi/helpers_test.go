package openapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// seen is one request as an action server received it.
type seen struct {
	Method  string
	URI     string // raw request URI: path and query exactly as sent
	Headers map[string]string
	Body    string
}

// recorder is an action server that records requests and answers each
// with a fixed reply. Safe for concurrent use.
type recorder struct {
	mu      sync.Mutex
	reqs    []seen
	headers []string // which request headers to record
	reply   func(w http.ResponseWriter, r *http.Request)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, URI: r.RequestURI, Body: string(b)}
	for _, h := range rec.headers {
		if v := r.Header.Get(h); v != "" {
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers[h] = v
		}
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, s)
	reply := rec.reply
	rec.mu.Unlock()
	if reply != nil {
		reply(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok": true}`)
}

func (rec *recorder) take() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r := rec.reqs
	rec.reqs = nil
	return r
}

// startServer runs h on a real HTTP server for the test's lifetime.
func startServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// writeSpec writes a document into a temporary file and returns its path.
func writeSpec(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loaded returns a loaded Server; it fails the test when Load fails.
func loaded(t *testing.T, opts *Options) *Server {
	t.Helper()
	s := New("test", opts)
	if err := s.Load(t.Context()); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func findTool(t testing.TB, s *Server, name string) tools.Tool {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func callTool(t *testing.T, tl tools.Tool, args string) *tools.Result {
	t.Helper()
	return callToolCtx(t, t.Context(), tl, args)
}

func callToolCtx(t testing.TB, ctx context.Context, tl tools.Tool, args string) *tools.Result {
	t.Helper()
	res, err := tl.Call(ctx, &tools.CallRequest{Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return res
}

func toolNames(ts []tools.Tool) []string {
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Info().Name)
	}
	return names
}
