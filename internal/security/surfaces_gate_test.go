package security

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestOneGateEverySurface makes the same call through every surface and
// checks that the gate's one entry point recorded and counted it the same
// way: the audit record (all but IDs, times and the surface's own context:
// agent label, conversation, run and call IDs) and the increments of
// switchboard_tool_calls_total. One stack serves every cell (a real
// `serve` app on a SQLite file, the test MCP server over HTTP, the fake
// model); each cell calls as a user of its own, so records and rate-limit
// buckets do not mix.
func TestOneGateEverySurface(t *testing.T) {
	s := newGateStack(t)
	for _, oc := range gateOutcomes {
		want := oc.want
		for _, sf := range gateSurfaces {
			t.Run(oc.name+"/"+sf.name, func(t *testing.T) {
				if sf.local && (oc.name == "refused by permission" || oc.name == "limited") {
					t.Skip("`switchboard call` is the local user, who may call every tool, in a process of its own whose in-process limiter starts full (one call per process)")
				}
				user := "local"
				key := ""
				if !sf.local {
					user = strings.NewReplacer(" ", "-", "/", "-").Replace(oc.name + "-" + sf.name)
					perms := oc.perms
					if perms == nil {
						perms = []string{"*"}
					}
					key = s.user(t, user, perms...)
				}
				before := s.auditIDs(t, user)
				m0 := s.toolMetrics(t)
				for range oc.calls {
					sf.call(t, s, key, oc.tool, oc.args)
				}
				got := s.newRecords(t, user, before)
				wantRecs := slices.Clone(want)
				for i := range wantRecs {
					wantRecs[i].User = user
				}
				if diff := cmp.Diff(wantRecs, got); diff != "" {
					t.Errorf("audit records mismatch (-want +got):\n%s", diff)
				}
				if sf.local {
					return // a `switchboard call` process has no /metrics
				}
				if diff := cmp.Diff(oc.metrics, metricDelta(m0, s.toolMetrics(t))); diff != "" {
					t.Errorf("switchboard_tool_calls_total increments mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// gateRecord is what the gate decides of an audit record: everything but
// IDs, times and the surface's own context.
type gateRecord struct {
	User, Tool, Server, Arguments string
	Approval                      store.AuditApproval
	Outcome                       store.Outcome
	Error                         string
	ResultBytes                   int64
}

type gateOutcome struct {
	name, tool, args string
	perms            []string // the caller's permission globs; nil: "*"
	calls            int
	want             []gateRecord
	metrics          map[string]float64 // label set -> increment
}

const failText = "it broke" // the test server's fail tool

var gateOutcomes = []gateOutcome{
	{
		name: "ok", tool: "test__echo", args: echoArgs, calls: 1,
		want:    []gateRecord{{Tool: "test__echo", Server: "test", Arguments: echoArgs, Approval: store.AuditAutoApproved, Outcome: store.OutcomeOK, ResultBytes: int64(len(toolMarker))}},
		metrics: map[string]float64{`outcome="ok",server="test",tool="test__echo"`: 1},
	},
	{
		name: "tool error", tool: "test__fail", args: `{}`, calls: 1,
		want:    []gateRecord{{Tool: "test__fail", Server: "test", Arguments: `{}`, Approval: store.AuditAutoApproved, Outcome: store.OutcomeToolError, Error: failText, ResultBytes: int64(len(failText))}},
		metrics: map[string]float64{`outcome="tool_error",server="test",tool="test__fail"`: 1},
	},
	{
		name: "denied", tool: "test__add", args: `{"a":1,"b":2}`, calls: 1,
		want: []gateRecord{{
			Tool: "test__add", Server: "test", Arguments: `{"a":1,"b":2}`, Approval: store.AuditDenied, Outcome: store.OutcomeDenied,
			Error: "the approval policy does not allow test__add, so it was not called; an administrator can allow it with an approvals rule, for example {server: test, tool: add, policy: ask}",
		}},
		metrics: map[string]float64{`outcome="denied",server="test",tool="test__add"`: 1},
	},
	{
		name: "refused by permission", tool: "test__echo", args: echoArgs, perms: []string{"test__fail"}, calls: 1,
		want:    []gateRecord{{Tool: "test__echo", Server: "test", Arguments: echoArgs, Approval: store.AuditForbidden, Outcome: store.OutcomeDenied, Error: "the caller's permissions do not include this tool"}},
		metrics: map[string]float64{`outcome="denied",server="test",tool="test__echo"`: 1},
	},
	{
		// A burst of one: the second call is refused, and not recorded (a
		// flood of calls must not become a flood of writes), but counted.
		name: "limited", tool: "test__echo", args: echoArgs, calls: 2,
		want: []gateRecord{{Tool: "test__echo", Server: "test", Arguments: echoArgs, Approval: store.AuditAutoApproved, Outcome: store.OutcomeOK, ResultBytes: int64(len(toolMarker))}},
		metrics: map[string]float64{
			`outcome="ok",server="test",tool="test__echo"`:     1,
			`outcome="denied",server="test",tool="test__echo"`: 1,
		},
	},
	{
		name: "held by pinning", tool: "test__slow", args: `{"ms":1}`, calls: 1,
		want: []gateRecord{{
			Tool: "test__slow", Server: "test", Arguments: `{"ms":1}`, Approval: store.AuditHeld, Outcome: store.OutcomeDenied,
			Error: "tool test__slow changed its definition since it was accepted; an admin must run `switchboard tools accept test__slow`",
		}},
		metrics: map[string]float64{`outcome="denied",server="test",tool="test__slow"`: 1},
	},
}

// gateSurface makes one call of tool with args (a JSON object) as the
// holder of key; what the caller got is not its concern (the records and
// counts are).
type gateSurface struct {
	name  string
	local bool
	call  func(t *testing.T, s *gateStack, key, tool, args string)
}

var gateSurfaces = []gateSurface{
	{name: "REST", call: func(t *testing.T, s *gateStack, key, tool, args string) {
		httpCall(t, http.MethodPost, s.base+"/api/v1/tools/"+tool+"/call", key, map[string]json.RawMessage{"arguments": json.RawMessage(args)})
	}},
	{name: "chat completions", call: func(t *testing.T, s *gateStack, key, tool, args string) {
		httpCall(t, http.MethodPost, s.base+"/v1/chat/completions", key, map[string]any{
			"model": "default", "messages": []map[string]string{{"role": "user", "content": "please call " + tool + " " + args}},
		})
	}},
	{name: "MCP SDK path", call: func(t *testing.T, s *gateStack, key, tool, args string) {
		// A progress token keeps the call off the direct path.
		p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
		p.SetProgressToken("p1")
		_, _ = s.mcpSession(t, key).CallTool(t.Context(), p)
	}},
	{name: "MCP direct path", call: callDirect},
	{name: "agent run", call: func(t *testing.T, s *gateStack, key, tool, args string) {
		s.agentRun(t, key, "please call "+tool+" "+args)
	}},
	{name: "CLI call", local: true, call: func(t *testing.T, s *gateStack, _, tool, args string) {
		var out, errb strings.Builder
		cli.Run(t.Context(), &cli.Env{
			Args: []string{"call", tool, args}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(string) string { return "" }, Cwd: s.dir,
		})
	}},
}

// gateStack is surfaceStack with a pin that holds test__slow, rules that
// give every outcome, and an admin key that reads /metrics.
type gateStack struct {
	*surfaceStack
	admin string
}

const gateConfig = `rateLimits: {toolCallsPerMinute: 6}
approvals:
  rules: [{server: test, tool: add, policy: deny}, {server: test, tool: fail, policy: allow}]
`

func newGateStack(t *testing.T) *gateStack {
	t.Helper()
	ss := newStackWith(t, gateConfig, func(st store.Store) {
		// test__slow was accepted with another definition: the server's
		// current one is a change, held until an admin accepts it.
		if _, err := st.CreatePin(t.Context(), store.Pin{Server: "test", Tool: "slow", Kind: "mcp", Hash: strings.Repeat("0", 64), Accepted: json.RawMessage(`{"name":"slow","description":"an older definition"}`)}); err != nil {
			t.Fatal(err)
		}
	})
	if !mcptest.Poll(20*time.Second, func() bool { return len(ss.app.Registry().Held()) == 1 }) {
		t.Fatalf("test__slow is not held: %v", ss.app.Registry().Held())
	}
	return &gateStack{surfaceStack: ss, admin: stackAdminKey}
}

func (s *gateStack) auditIDs(t *testing.T, user string) map[string]bool {
	ids := map[string]bool{}
	for _, r := range s.audit(t, user, "") {
		ids[r.ID] = true
	}
	return ids
}

// newRecords returns user's records not in before, oldest first, once
// none is running (a surface may answer before the record is finished).
func (s *gateStack) newRecords(t *testing.T, user string, before map[string]bool) []gateRecord {
	t.Helper()
	var out []gateRecord
	mcptest.Poll(10*time.Second, func() bool {
		out = out[:0]
		for _, r := range s.audit(t, user, "") {
			if before[r.ID] {
				continue
			}
			if r.Outcome == store.OutcomeRunning {
				return false
			}
			var args bytes.Buffer
			_ = json.Compact(&args, r.Arguments)
			out = append(out, gateRecord{User: r.User, Tool: r.Tool, Server: r.Server, Arguments: args.String(), Approval: r.Approval, Outcome: r.Outcome, Error: r.Error, ResultBytes: r.ResultBytes})
		}
		return true
	})
	return out
}

// toolMetrics reads switchboard_tool_calls_total by label set.
func (s *gateStack) toolMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	code, b := httpCall(t, http.MethodGet, s.base+"/metrics", s.admin, nil)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, b)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		labels, rest, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "switchboard_tool_calls_total{"), "} ")
		if !ok || !strings.HasPrefix(sc.Text(), "switchboard_tool_calls_total{") {
			continue
		}
		v, err := strconv.ParseFloat(rest, 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", sc.Text(), err)
		}
		out[labels] = v
	}
	return out
}

func metricDelta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func (s *gateStack) mcpSession(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "gate-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{key: key}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to /mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callDirect initializes a session by hand and sends the tools/call as one
// JSON POST, which the gateway answers on its direct path when it may (an
// allowed, known tool), and otherwise through the SDK.
func callDirect(t *testing.T, s *gateStack, key, tool, args string) {
	post := func(session, body string) (http.Header, []byte) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header, b
	}
	h, b := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	id := h.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: %s", b)
	}
	post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	// The SDK marks the session initialized just after answering the
	// notification: until then the call would go to the SDK, so wait for
	// the session to be ready by listing (which the direct path never takes).
	mcptest.Poll(5*time.Second, func() bool {
		_, b := post(id, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		return bytes.Contains(b, []byte(`"tools"`))
	})
	h, b = post(id, call)
	// An allowed, known tool is answered on the direct path (JSON); the
	// rest goes to the SDK, which answers with an event stream.
	if direct := tool == "test__echo" || tool == "test__fail"; direct != (h.Get("Content-Type") == "application/json") {
		t.Errorf("tools/call of %s answered as %s (direct path expected: %v): %s", tool, h.Get("Content-Type"), direct, b)
	}
}

// agentRun posts message to a new conversation and reads its stream to
// the end.
func (s *gateStack) agentRun(t *testing.T, key, message string) {
	_, resp := s.postMessage(t, t.Context(), key, message)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
}
