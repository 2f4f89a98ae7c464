package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// replySpec has one GET operation per kind of answer the server gives.
const replySpec = `{"openapi": "3.1.0", "info": {"title": "r", "version": "1"}, "paths": {
 "/object": {"get": {"operationId": "object"}},
 "/array": {"get": {"operationId": "array"}},
 "/text": {"get": {"operationId": "text"}},
 "/empty": {"delete": {"operationId": "empty"}},
 "/image": {"get": {"operationId": "image"}},
 "/binary": {"get": {"operationId": "binary"}},
 "/big": {"get": {"operationId": "big"}},
 "/missing": {"get": {"operationId": "missing"}},
 "/teapot": {"get": {"operationId": "teapot"}},
 "/slow": {"get": {"operationId": "slow"}}
}}`

// replyHandler answers replySpec's operations. /slow waits until the
// request is cancelled (by the client's timeout or its context).
func replyHandler(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/object":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{\n  \"a\": 1,\n  \"b\": [true, null]\n}\n")
	case "/array":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[1, 2]`)
	case "/text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "hello, world")
	case "/empty":
		w.WriteHeader(http.StatusNoContent)
	case "/image":
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n"))
	case "/binary":
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0xff, 0xfe, 0x00})
	case "/big":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, strings.Repeat("é", 100))
	case "/missing":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"detail": "no such thing"}`)
	case "/teapot":
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, strings.Repeat("x", 5000))
	case "/slow":
		<-r.Context().Done()
	}
}

func TestResponses(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(replyHandler))
	s := loaded(t, &Options{URL: ts.URL, Spec: writeSpec(t, replySpec), MaxResponseBytes: 51})
	text := func(s string) []tools.Content { return []tools.Content{{Type: tools.ContentText, Text: s}} }
	tests := []struct {
		tool string
		want *tools.Result
	}{
		{"object", &tools.Result{Content: text(`{"a":1,"b":[true,null]}`), Structured: json.RawMessage(`{"a":1,"b":[true,null]}`)}},
		{"array", &tools.Result{Content: text(`[1,2]`)}},
		{"text", &tools.Result{Content: text("hello, world")}},
		{"empty", &tools.Result{Content: text("HTTP 204 No Content (no content)")}},
		{"image", &tools.Result{Content: []tools.Content{{Type: tools.ContentImage, Data: []byte("\x89PNG\r\n"), MIMEType: "image/png"}}}},
		{"binary", &tools.Result{Content: text("binary response: 3 bytes of application/octet-stream")}},
		// 51 bytes end inside the 26th "é": the half rune is dropped.
		{"big", &tools.Result{Content: text(strings.Repeat("é", 25) + "\n[response cut at 51 bytes]")}},
		{"missing", &tools.Result{Content: text(`HTTP 404 Not Found from GET /missing: {"detail": "no such thing"}`), IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got := callTool(t, findTool(t, s, tt.tool), `{}`)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorBodyCut checks that a failed answer shows only the start of its
// body, even when more than that was read.
func TestErrorBodyCut(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(replyHandler))
	s := loaded(t, &Options{URL: ts.URL, Spec: writeSpec(t, replySpec)})
	got := callTool(t, findTool(t, s, "teapot"), `{}`)
	want := "HTTP 418 I'm a teapot from GET /teapot: " + strings.Repeat("x", errorSnippet) + " …"
	if !got.IsError || got.Text() != want {
		t.Errorf("result = %v %.80q..., want error %.80q...", got.IsError, got.Text(), want)
	}
}

func TestTimeout(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(replyHandler))
	s := loaded(t, &Options{URL: ts.URL, Spec: writeSpec(t, replySpec), Timeout: 50 * time.Millisecond})
	got := callTool(t, findTool(t, s, "slow"), `{}`)
	if want := "GET /slow timed out after 50ms"; !got.IsError || got.Text() != want {
		t.Errorf("result = %v %q, want error %q", got.IsError, got.Text(), want)
	}
}

// TestCallerCancel checks that a call whose context ends returns the
// context's error (not a tool result), promptly, while the request is in
// flight.
func TestCallerCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			arrived <- struct{}{}
		}
		replyHandler(w, r)
	}))
	s := loaded(t, &Options{URL: ts.URL, Spec: writeSpec(t, replySpec)})
	tl := findTool(t, s, "slow")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Call(ctx, &tools.CallRequest{})
		done <- err
	}()
	<-arrived
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Call error = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Call did not return after its context was cancelled")
	}
}

// TestNetworkError checks that an unreachable server is a tool error the
// model sees.
func TestNetworkError(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(replyHandler))
	s := loaded(t, &Options{URL: ts.URL, Spec: writeSpec(t, replySpec)})
	ts.Close()
	got := callTool(t, findTool(t, s, "object"), `{}`)
	if !got.IsError || !strings.HasPrefix(got.Text(), "GET /object failed: ") {
		t.Errorf("result = %v %q, want a tool error saying the request failed", got.IsError, got.Text())
	}
}
