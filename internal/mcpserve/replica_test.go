package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestSessionContinuesOnAnotherReplica opens a 2025 session on one Server
// and goes on with it on another that shares the session key, as behind a
// load balancer without sticky sessions: with the go-sdk client, and with
// raw requests for what another caller or a forged ID gets.
func TestSessionContinuesOnAnotherReplica(t *testing.T) {
	key := []byte("a key both replicas are configured with")
	audit := &auditLog{}
	a := serveHTTP(t, newServer(t, catalogue(), testGate(audit, ""), &mcpserve.Options{SessionKey: key}))
	b := serveHTTP(t, newServer(t, catalogue(), testGate(audit, ""), &mcpserve.Options{SessionKey: key}))

	// The client's requests alternate between the replicas.
	var n atomic.Int32
	rr := &headerTransport{caller: "alice", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if n.Add(1)%2 == 0 {
			r = r.Clone(r.Context())
			r.URL.Host = strings.TrimPrefix(b.URL, "http://")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: a.URL, HTTPClient: &http.Client{Transport: rr}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 4 {
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatalf("tools/list %d: %v", i, err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files__read", Arguments: map[string]any{"i": i}})
		if err != nil || res.IsError {
			t.Fatalf("tools/call %d: %v %v", i, err, res)
		}
	}
	audit.mu.Lock()
	for _, rec := range audit.begun {
		if rec.ConversationID == "" || rec.ConversationID != audit.begun[0].ConversationID || rec.User != "alice" {
			t.Errorf("audit record %+v: want alice's calls all in one session", rec)
		}
	}
	audit.mu.Unlock()

	id, code, body := initialize(t, a.URL, "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize on A: %d %s", code, body)
	}
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	if _, code, body := rawPost(t, t.Context(), b.URL, "alice", id, list); code != http.StatusOK || !strings.Contains(body, "files__read") {
		t.Errorf("alice's session on B: %d %s", code, body)
	}
	if _, code, _ := rawPost(t, t.Context(), b.URL, "mallory", id, list); code != http.StatusForbidden {
		t.Errorf("another caller naming alice's session on B: %d, want 403", code)
	}
	raw, _, _ := strings.Cut(id, ".")
	if _, code, _ := rawPost(t, t.Context(), b.URL, "alice", raw+".forged", list); code != http.StatusForbidden {
		t.Errorf("a forged session ID on B: %d, want 403", code)
	}
	if _, code, _ := rawPost(t, t.Context(), b.URL, "alice", raw, list); code != http.StatusNotFound {
		t.Errorf("the bare SDK ID on B: %d, want 404", code)
	}

	// A replica with another key knows nothing of it.
	other := serveHTTP(t, newServer(t, catalogue(), nil, &mcpserve.Options{SessionKey: []byte("another key")}))
	if _, code, _ := rawPost(t, t.Context(), other.URL, "alice", id, list); code != http.StatusForbidden {
		t.Errorf("alice's session on a replica with another key: %d, want 403", code)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestApprovalOnAnotherReplica calls a tool that needs approval in one
// session served by two Servers sharing the session key but no database
// (no relayed answers; relay_test.go has them). On the replica
// holding the session's stream the question is asked; on the other, which
// re-creates the session for the request and cannot reach the client, the
// call is refused with a tool error saying why, and the tool is not run. A
// 2026-07-28 client, whose questions travel in the call's own round trips,
// is asked and answered across both.
func TestApprovalOnAnotherReplica(t *testing.T) {
	key := []byte("a key both replicas are configured with")
	var called atomic.Int32
	newReplica := func() string {
		reg := tools.NewRegistry(nil)
		reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("rm", destructive, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
			called.Add(1)
			return tools.TextResult("removed"), nil
		})})
		return serveHTTP(t, newServer(t, reg, nil, &mcpserve.Options{SessionKey: key})).URL
	}
	a, b := newReplica(), newReplica()
	var asked atomic.Int32
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	// route sends the client's requests to A, or to B once toB is set,
	// or alternately when alternate is.
	var toB, alternate atomic.Bool
	var n atomic.Int32
	client := &http.Client{Transport: &headerTransport{caller: "alice", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if toB.Load() || (alternate.Load() && n.Add(1)%2 == 0) {
			r = r.Clone(r.Context())
			r.URL.Host = strings.TrimPrefix(b, "http://")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}}
	connect := func(version string) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, opts).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: a, HTTPClient: client, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"path": "/tmp/x"}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		return res
	}

	cs := connect("2025-11-25") // initialize and the GET stream on A
	if res := call(cs); res.IsError || asked.Load() != 1 || called.Load() != 1 {
		t.Fatalf("on A, which holds the stream: %v %q, asked %d, called %d; want asked and run once", res.IsError, text(res), asked.Load(), called.Load())
	}
	toB.Store(true)
	res := call(cs)
	if !res.IsError || !strings.Contains(text(res), "does not hold this MCP session's stream") || !strings.Contains(text(res), "policy: allow") {
		t.Errorf("on B: %v %q; want a refusal saying the question can only be asked on the replica holding the stream", res.IsError, text(res))
	}
	if asked.Load() != 1 || called.Load() != 1 {
		t.Errorf("on B: asked %d, called %d; want neither again", asked.Load(), called.Load())
	}

	toB.Store(false)
	alternate.Store(true)
	cs26 := connect("2026-07-28")
	before := n.Load()
	for i := range 3 {
		if res := call(cs26); res.IsError || text(res) != "removed" {
			t.Errorf("2026-07-28 call %d: %v %q", i, res.IsError, text(res))
		}
	}
	if asked.Load() != 4 || called.Load() != 4 || n.Load()-before < 6 {
		t.Errorf("2026-07-28: asked %d, called %d in %d requests; want 3 more of each, on both replicas", asked.Load(), called.Load(), n.Load()-before)
	}
}

// TestAnswerOnAnotherReplica shows why 2025 sessions that are asked
// approval questions must be pinned to their replica when the replicas
// share no database (no relayed answers): the replica holding
// the session asks, the client's answer reaches another replica, which
// cannot pass it on and logs that it arrived, and the call ends refused
// when nobody answered in time.
func TestAnswerOnAnotherReplica(t *testing.T) {
	key := []byte("a key both replicas are configured with")
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("rm", destructive, nil)})
	a := serveHTTP(t, newServer(t, reg, nil, &mcpserve.Options{SessionKey: key, ApprovalTimeout: 300 * time.Millisecond})).URL
	var logs syncBuffer
	b := serveHTTP(t, newServer(t, reg, nil, &mcpserve.Options{SessionKey: key, Logger: slog.New(slog.NewTextHandler(&logs, nil))})).URL
	// Answers (POSTs without a method) go to B, everything else to A.
	client := &http.Client{Transport: &headerTransport{caller: "alice", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost && r.GetBody != nil {
			body, _ := r.GetBody()
			var m struct{ Method string }
			_ = json.NewDecoder(body).Decode(&m)
			if m.Method == "" {
				r = r.Clone(r.Context())
				r.URL.Host = strings.TrimPrefix(b, "http://")
			}
		}
		return http.DefaultTransport.RoundTrip(r)
	})}}
	var asked atomic.Int32
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	}).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: a, HTTPClient: client, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if asked.Load() != 1 || !res.IsError || !strings.Contains(text(res), "nobody answered the approval question") {
		t.Errorf("asked %d; result %v %q; want asked once and refused after the timeout", asked.Load(), res.IsError, text(res))
	}
	if !strings.Contains(logs.String(), "answer to a question asked by another replica arrived here") {
		t.Errorf("B logged %q; want the lost answer reported", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a logger writing while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
