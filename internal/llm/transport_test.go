package llm_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func jsonReply(status int, body string, kv ...string) llmtest.Reply {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return llmtest.Reply{Status: status, Header: h, Chunks: [][]byte{[]byte(body)}}
}

func TestTransportRetries(t *testing.T) {
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	tests := []struct {
		name      string
		opts      llm.HTTPOptions
		replies   []llmtest.Reply
		wantKind  llm.ErrorKind // empty: success
		wantCalls int
	}{
		{
			"success after two 529",
			llm.HTTPOptions{InitialBackoff: time.Millisecond},
			[]llmtest.Reply{jsonReply(529, overloaded), jsonReply(503, ""), jsonReply(200, `{}`)},
			"", 3,
		},
		{
			"retries disabled",
			llm.HTTPOptions{MaxRetries: -1},
			[]llmtest.Reply{jsonReply(500, overloaded)},
			llm.KindServer, 1,
		},
		{
			"retry-after beyond the maximum wait is not waited",
			llm.HTTPOptions{MaxRetryWait: time.Second},
			[]llmtest.Reply{jsonReply(429, `{"error":{"message":"slow down"}}`, "Retry-After", "120")},
			llm.KindRateLimit, 1,
		},
		{
			"client errors are not retried",
			llm.HTTPOptions{InitialBackoff: time.Millisecond},
			[]llmtest.Reply{jsonReply(400, `{"error":{"message":"bad"}}`)},
			llm.KindInvalidRequest, 1,
		},
		{
			"three retries",
			llm.HTTPOptions{MaxRetries: 3, InitialBackoff: time.Millisecond},
			[]llmtest.Reply{jsonReply(502, ""), jsonReply(502, ""), jsonReply(502, ""), jsonReply(502, "")},
			llm.KindServer, 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.replies...)
			tr := llm.NewTransport("p", nil, &tt.opts)
			resp, err := tr.Do(t.Context(), http.MethodPost, srv.URL+"/x", http.Header{"X-Test": {"1"}}, []byte(`{"a":1}`))
			if resp != nil {
				resp.Body.Close()
			}
			var e *llm.Error
			switch {
			case tt.wantKind == "" && err != nil:
				t.Fatalf("Do: %v", err)
			case tt.wantKind != "" && (!errors.As(err, &e) || e.Kind != tt.wantKind):
				t.Fatalf("Do error = %v, want kind %s", err, tt.wantKind)
			}
			reqs := srv.Requests()
			if len(reqs) != tt.wantCalls {
				t.Fatalf("server saw %d requests, want %d", len(reqs), tt.wantCalls)
			}
			for i, r := range reqs {
				if string(r.Body) != `{"a":1}` || r.Header.Get("X-Test") != "1" {
					t.Errorf("attempt %d sent body %q header %q; every attempt must send the same request", i, r.Body, r.Header.Get("X-Test"))
				}
			}
			if tt.wantKind == llm.KindRateLimit && e.RetryAfter != 120*time.Second {
				t.Errorf("RetryAfter = %v, want 2m0s", e.RetryAfter)
			}
		})
	}
}

func TestTransportCancelDuringBackoff(t *testing.T) {
	answered := make(chan struct{})
	rep := jsonReply(503, "", "Retry-After", "30")
	rep.Check = func(testing.TB, *http.Request, []byte) { close(answered) }
	srv := llmtest.NewServer(t, rep)
	tr := llm.NewTransport("p", nil, &llm.HTTPOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-answered:
		case <-ctx.Done():
		}
		cancel()
	}()
	start := time.Now()
	_, err := tr.Do(ctx, http.MethodGet, srv.URL, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Do returned %v after cancellation", d)
	}
}

func TestTransportConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tr := llm.NewTransport("p", nil, &llm.HTTPOptions{MaxRetries: -1})
	_, err = tr.Do(t.Context(), http.MethodGet, "http://"+addr+"/", nil, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindConnection || !e.IsRetryable() || !strings.Contains(e.Message, "base URL") {
		t.Errorf("error = %#v, want a retryable connection error that names the base URL", err)
	}
}

func TestTransportBodyClose(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Chunks: [][]byte{[]byte("data: 1\n\n")}, Stall: true})
	tr := llm.NewTransport("p", nil, nil)
	resp, err := tr.Do(t.Context(), http.MethodGet, srv.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 9)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	select {
	case <-srv.ClientGone():
	case <-time.After(5 * time.Second):
		t.Error("closing the body did not release the connection")
	}
}

func TestTransportBadURL(t *testing.T) {
	tr := llm.NewTransport("p", nil, nil)
	_, err := tr.Do(t.Context(), http.MethodGet, "http://bad host/", nil, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindInvalidRequest || e.IsRetryable() {
		t.Errorf("error = %#v, want a non-retryable invalid_request *Error", err)
	}
}
