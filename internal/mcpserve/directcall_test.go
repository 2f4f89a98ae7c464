package mcpserve_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// directSession initializes a session of alice on endpoint and waits until
// the direct path takes its calls of files__read, then empties audit.
func directSession(t *testing.T, endpoint string, audit *auditLog) string {
	t.Helper()
	id, code, body := initialize(t, endpoint, "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, body)
	}
	rawPost(t, t.Context(), endpoint, "alice", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// The SDK handles notifications/initialized after answering it with
	// 202, so the direct path may start a moment later (the SDK answers
	// until then): wait for it, then start the audit afresh.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ct, _, _ := rawPost(t, t.Context(), endpoint, "alice", id, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"files__read","arguments":{}}}`)
		if ct == "application/json" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the direct path never took a call of the initialized session")
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
	audit.mu.Lock()
	audit.begun, audit.done = nil, nil
	audit.mu.Unlock()
	return id
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
	srv := newServer(t, reg, testGate(audit, ""), nil)
	ts := serveHTTP(t, srv)
	id := directSession(t, ts.URL, audit)

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

// TestDirectStatelessCall checks the direct path for protocol 2026-07-28
// requests, which have no session: a well-formed allowed call is answered
// with JSON carrying what 2026-07-28 results carry, and requests whose
// headers disagree with the body still get the SDK's answer.
func TestDirectStatelessCall(t *testing.T) {
	audit := &auditLog{}
	srv := newServer(t, catalogue(), testGate(audit, ""), nil)
	ts := serveHTTP(t, srv)
	post := func(name, body string) (string, int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(callerHeader, "alice")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), resp.StatusCode, string(b)
	}
	call := func(metaVersion string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + metaVersion +
			`","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}},"name":"files__read","arguments":{"q":1}}}`
	}
	ct, code, body := post("files__read", call("2026-07-28"))
	want := `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"switchboard","version":"dev"}},"content":[{"type":"text","text":"{\"q\":1}"}]}}`
	if ct != "application/json" || code != http.StatusOK || body != want {
		t.Errorf("stateless direct call: %d %s\n%s\nwant\n%s", code, ct, body, want)
	}
	audit.mu.Lock()
	if len(audit.begun) != 1 || audit.begun[0].ConversationID != "" || audit.begun[0].User != "alice" {
		t.Errorf("audit: %+v, want one record of alice without a session", audit.begun)
	}
	audit.mu.Unlock()
	if ct, _, body := post("files__write", call("2026-07-28")); ct == "application/json" && strings.Contains(body, `"result"`) {
		t.Errorf("Mcp-Name disagreeing with the body was served directly: %s", body)
	} else if !strings.Contains(body, "does not match body value 'files__read'") {
		// The SDK read the body the direct path had read first.
		t.Errorf("the SDK's answer to a disagreeing Mcp-Name: %s; want its header mismatch error naming the body's tool", body)
	}
	if ct, _, body := post("files__read", call("2025-11-25")); ct == "application/json" && strings.Contains(body, `"result"`) {
		t.Errorf("a _meta version disagreeing with the header was served directly: %s", body)
	}
}

// TestDirectCallReadsKeysAsTheSDK is the attack of issue 20: a body whose
// keys differ from the protocol's only by case ("METHOD", "PARAMS",
// "NAME"). encoding/json matches such keys too (and the last of two
// wins), go-sdk does not; a direct path decoding with encoding/json would
// run a call the SDK reads as something else, fooling anything that reads
// method and tool names exactly. Each body must be read as the SDK reads
// it: the exact-case key counts, the other is ignored.
func TestDirectCallReadsKeysAsTheSDK(t *testing.T) {
	var wrote atomic.Int32
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{
		tool("read", readOnly, nil),
		tool("erase", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
			wrote.Add(1)
			return tools.TextResult("erased"), nil
		}),
	})
	audit := &auditLog{}
	srv := newServer(t, reg, testGate(audit, ""), nil)
	ts := serveHTTP(t, srv)
	id := directSession(t, ts.URL, audit)

	for _, tt := range []struct {
		name, body string
		want       string // in the answer
		wantTool   string // the one call audited, "" for none
	}{
		{
			"METHOD after method", `{"jsonrpc":"2.0","id":20,"method":"tools/list","METHOD":"tools/call","params":{"name":"files__erase","arguments":{}}}`,
			`"name":"files__read"`, "",
		},
		{
			"METHOD before method", `{"jsonrpc":"2.0","id":21,"METHOD":"tools/call","method":"tools/list","params":{"name":"files__erase","arguments":{}}}`,
			`"name":"files__read"`, "",
		},
		{
			// No method: the SDK takes it for a response and accepts it.
			"only METHOD", `{"jsonrpc":"2.0","id":22,"METHOD":"tools/call","params":{"name":"files__erase","arguments":{}}}`,
			``, "",
		},
		{
			"PARAMS after params", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"files__read","arguments":{"p":1}},"PARAMS":{"name":"files__erase","arguments":{}}}`,
			`{\"p\":1}`, "files__read",
		},
		{
			"NAME after name", `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"files__read","NAME":"files__erase","arguments":{"p":2}}}`,
			`{\"p\":2}`, "files__read",
		},
		{
			"Arguments after arguments", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"files__read","arguments":{"p":3},"Arguments":{"p":"forged"}}}`,
			`{\"p\":3}`, "files__read",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			audit.mu.Lock()
			audit.begun, audit.done = nil, nil
			audit.mu.Unlock()
			_, code, body := rawPost(t, t.Context(), ts.URL, "alice", id, tt.body)
			if !strings.Contains(body, tt.want) {
				t.Errorf("answer %d %s; want it to contain %s", code, body, tt.want)
			}
			audit.mu.Lock()
			var called []string
			for _, r := range audit.begun {
				called = append(called, r.Tool)
			}
			audit.mu.Unlock()
			want := []string(nil)
			if tt.wantTool != "" {
				want = []string{tt.wantTool}
			}
			if diff := cmp.Diff(want, called); diff != "" {
				t.Errorf("tools called mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if n := wrote.Load(); n != 0 {
		t.Errorf("files__erase ran %d times; only exact-case keys name what runs", n)
	}
}
