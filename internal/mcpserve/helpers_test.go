package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe() // returns unless this process is an upstream test server
	goleak.VerifyTestMain(m)
}

// echo answers a call with its arguments.
func echo(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
	return tools.TextResult(string(req.Arguments)), nil
}

var (
	readOnly    = &tools.Annotations{ReadOnlyHint: true}
	destructive = &tools.Annotations{Title: "Write"}
)

// tool returns an in-process tool; a nil call echoes the arguments.
func tool(name string, ann *tools.Annotations, call func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error)) *tools.Func {
	if call == nil {
		call = echo
	}
	return &tools.Func{
		Spec: tools.Info{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: ann},
		Run:  call,
	}
}

// auditLog is a hand-written store.AuditLog that keeps what it was told.
type auditLog struct {
	mu      sync.Mutex
	begun   []store.AuditRecord
	done    map[string]store.AuditResult
	failing bool
}

func (a *auditLog) BeginAudit(_ context.Context, rec store.AuditRecord) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failing {
		return "", errAudit
	}
	a.begun = append(a.begun, rec)
	return rec.Tool + "#" + string(rune('0'+len(a.begun))), nil
}

func (a *auditLog) FinishAudit(_ context.Context, id string, out store.AuditResult) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done == nil {
		a.done = make(map[string]store.AuditResult)
	}
	out.Duration = 0 // not comparable
	a.done[id] = out
	return nil
}

func (a *auditLog) outcomes() map[string]store.AuditResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]store.AuditResult, len(a.done))
	for k, v := range a.done {
		out[k] = v
	}
	return out
}

type auditError struct{}

func (auditError) Error() string { return "audit store down" }

var errAudit = auditError{}

// callerHeader is how the tests' stand-in for the HTTP layer learns the
// caller: the real server authenticates an API key instead.
const callerHeader = "X-Test-Caller"

// serveHTTP starts srv's handler behind a minimal authenticating layer on
// httptest and closes both at the end of the test.
func serveHTTP(t testing.TB, srv *mcpserve.Server) *httptest.Server {
	t.Helper()
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(callerHeader); id != "" {
			r = r.WithContext(mcpserve.WithCaller(r.Context(), mcpserve.Caller{ID: id, Name: id}))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return ts
}

// headerTransport adds the caller header to every request.
type headerTransport struct {
	caller string
	base   http.RoundTripper
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(callerHeader, h.caller)
	return h.base.RoundTrip(r)
}

// connectHTTP connects a go-sdk client as caller to the server at url, on
// protocol 2025-11-25 (a session; see connectHTTPVersion for others).
func connectHTTP(t testing.TB, url, caller string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectHTTPVersion(t, url, caller, "2025-11-25", opts)
}

// connectHTTPVersion connects a go-sdk client as caller to the server at
// url, asking for protocol version.
func connectHTTPVersion(t testing.TB, url, caller, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: &headerTransport{caller: caller, base: http.DefaultTransport}},
		MaxRetries: -1,
	}
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectStdio serves srv over in-process pipes with ServeStdio and
// connects a go-sdk client to it. The session ends at the end of the test.
func connectStdio(t testing.TB, srv *mcpserve.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, sr, sw) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connecting over stdio: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-served
	})
	return cs
}

// text returns the text of the result's content blocks, one per line.
func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			if s != "" {
				s += "\n"
			}
			s += tc.Text
		}
	}
	return s
}

func toolNames(ts []*mcp.Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// newServer returns a Server for reg through g (nil: a gate with the
// default policy and no audit) that is closed at the end of the test.
func newServer(t *testing.T, reg *tools.Registry, g *gate.Gate, opts *mcpserve.Options) *mcpserve.Server {
	t.Helper()
	if g == nil {
		g = gate.New(nil)
	}
	srv := mcpserve.New(reg, g, opts)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// postAs posts body to h's /mcp as the caller alice, in session (none when
// empty) at protocol 2025-11-25, and returns the recorded answer.
func postAs(ctx context.Context, h http.Handler, session, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	req = req.WithContext(mcpserve.WithCaller(req.Context(), mcpserve.Caller{ID: "alice", Name: "alice"}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// testGate is a gate recording into audit (nil: nowhere) whose policy
// answers action for every tool ("" : the default policy).
func testGate(audit store.AuditLog, action mcpserve.Action) *gate.Gate {
	var p gate.Policy
	if action != "" {
		p.Rules = []gate.Rule{{Action: action}}
	}
	return gate.New(&gate.Options{Audit: audit, Policy: p})
}
