package mcpserve_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// rawPost sends body on session as caller and returns the response's
// content type, status and body.
func rawPost(t *testing.T, ctx context.Context, endpoint, caller, session, body string) (string, int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(callerHeader, caller)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Header.Get("Content-Type"), resp.StatusCode, string(b)
}

// TestDirectCall checks the direct path of tools/call: an allowed call on
// an initialized session is answered with JSON and audited with its
// session; calls that need the SDK (a question to ask, an unknown tool, a
// progress token, a batch) still get the SDK's answers; and closing the
// request cancels the call.
func TestDirectCall(t *testing.T) {
	started := make(chan struct{}, 1)
	cancelled := make(chan struct{}, 1)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{
		tool("read", readOnly, nil),
		tool("write", destructive, nil),
		tool("wait", readOnly, func(ctx context.Context, _ *tools.CallRequest) (*tools.Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- struct{}{}
			return nil, ctx.Err()
		}),
	})
	audit := &auditLog{}
	srv := newServer(t, reg, &mcpserve.Options{Audit: audit})
	ts := serveHTTP(t, srv)
	id, code, body := initialize(t, ts.URL, "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, body)
	}
	rawPost(t, t.Context(), ts.URL, "alice", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	ct, code, body := rawPost(t, t.Context(), ts.URL, "alice", id, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"files__read","arguments":{"path":"a"}}}`)
	if code != http.StatusOK || ct != "application/json" {
		t.Fatalf("direct call: %d %s %s", code, ct, body)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"path\":\"a\"}"}]}}`; body != want {
		t.Errorf("direct call answered\n%s\nwant\n%s", body, want)
	}
	audit.mu.Lock()
	// The audit names the session by the SDK's ID, the part before the MAC.
	if raw, _, _ := strings.Cut(id, "."); len(audit.begun) != 1 || audit.begun[0].ConversationID != raw || audit.begun[0].User != "alice" {
		t.Errorf("audit of the direct call: %+v, want one record of alice in session %s", audit.begun, id)
	}
	audit.mu.Unlock()
	if got := audit.outcomes()["files__read#1"]; got.Outcome != store.OutcomeOK {
		t.Errorf("audit outcome %+v, want ok", got)
	}

	for _, tt := range []struct{ name, body, want string }{
		{"ask goes to the SDK", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"files__write","arguments":{}}}`, "did not declare the elicitation capability"},
		{"unknown tool", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, `unknown tool \"nope\"`},
		{"progress token", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"files__read","arguments":{"x":1},"_meta":{"progressToken":"p"}}}`, `{\"x\":1}`},
		{"batch", `[{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"files__read","arguments":{}}}]`, ``},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"name":"files__read","arguments":{}}}`, ``},
	} {
		ct, code, body := rawPost(t, t.Context(), ts.URL, "alice", id, tt.body)
		if ct == "application/json" && code == http.StatusOK && strings.Contains(body, `"result"`) && !strings.Contains(tt.body, "files__read") {
			t.Errorf("%s: answered on the direct path: %s", tt.name, body)
		}
		if !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s %s; want it to contain %s", tt.name, code, ct, body, tt.want)
		}
	}
	if _, code, _ := rawPost(t, t.Context(), ts.URL, "bob", id, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"files__read","arguments":{}}}`); code != http.StatusForbidden {
		t.Errorf("a direct call on another caller's session: %d, want 403", code)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rawPost(t, ctx, ts.URL, "alice", id, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"files__wait","arguments":{}}}`)
	}()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the request did not cancel the direct call")
	}
	<-done
}
