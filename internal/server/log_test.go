package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Split(bytes.TrimSpace(s.b.Bytes()), []byte("\n"))
}

// TestLogsCarryRequestID checks that a request's logs name its request id
// (the one sent back in X-Request-Id) and user, and that a failure is
// logged once.
func TestLogsCarryRequestID(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEnv(t, func(o *Options) { o.Logger = logger })
	resp := e.send(t, http.MethodGet, "/api/v1/conversations/nope", e.key, nil, nil)
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if id == "" {
		t.Fatal("no X-Request-Id header")
	}
	failures := 0
	for _, line := range buf.lines() {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		if rec["request_id"] != id || rec["user"] != "alice" {
			t.Errorf("log line lacks request id %s or user alice: %s", id, line)
		}
		if rec["msg"] == "request failed" {
			failures++
		}
	}
	if failures != 1 {
		t.Errorf("the failure was logged %d times, want once", failures)
	}
}
