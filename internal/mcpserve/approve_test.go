package mcpserve_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestApproval checks the approval policy end to end: the question the
// client is asked, what the tool sees, what the client gets back and what
// the audit records. Over HTTP the session speaks 2025-11-25 and is asked
// with elicitation/create; over stdio the go-sdk client speaks 2026-07-28
// and answers the question as an input request of the call.
func TestApproval(t *testing.T) {
	answer := func(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		}
	}
	tests := []struct {
		name     string
		policy   mcpserve.Action
		elicit   func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		wantText string // substring of the result text
		wantErr  bool   // IsError
		want     store.AuditResult
	}{
		{
			name: "allow", policy: mcpserve.ActionAllow, wantText: `{"path":"/tmp/x"}`,
			want: store.AuditResult{Outcome: store.OutcomeOK, Approval: store.AuditAutoApproved, ResultBytes: 17},
		},
		{
			name: "ask accepted", policy: mcpserve.ActionAsk, elicit: answer("accept", map[string]any{"approve": true}), wantText: `{"path":"/tmp/x"}`,
			want: store.AuditResult{Outcome: store.OutcomeOK, Approval: store.AuditApproved, ResultBytes: 17},
		},
		{
			name: "ask accepted with approve false", policy: mcpserve.ActionAsk, elicit: answer("accept", map[string]any{"approve": false}),
			wantText: "the user declined it", wantErr: true, want: store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditDeclined},
		},
		{
			name: "ask declined", policy: mcpserve.ActionAsk, elicit: answer("decline", nil),
			wantText: "the user declined it", wantErr: true, want: store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditDeclined},
		},
		{
			name: "ask cancelled", policy: mcpserve.ActionAsk, elicit: answer("cancel", nil),
			wantText: "the user declined it", wantErr: true, want: store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditDeclined},
		},
		{
			name: "ask without elicitation", policy: mcpserve.ActionAsk,
			wantText: "did not declare the elicitation capability", wantErr: true, want: store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditUnavailable},
		},
		{
			name: "deny", policy: mcpserve.ActionDeny, elicit: answer("accept", map[string]any{"approve": true}),
			wantText: "{server: files, tool: write, policy: ask}", wantErr: true, want: store.AuditResult{Outcome: store.OutcomeDenied, Approval: store.AuditDenied},
		},
	}
	for _, tt := range tests {
		for _, transport := range []string{"http", "http-2026", "stdio"} {
			t.Run(tt.name+"/"+transport, func(t *testing.T) {
				testApproval(t, transport, tt.policy, tt.elicit, tt.wantText, tt.wantErr, tt.want)
			})
		}
	}
}

func testApproval(t *testing.T, transport string, policy mcpserve.Action, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), wantText string, wantErr bool, want store.AuditResult) {
	tt := struct {
		policy   mcpserve.Action
		elicit   func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		wantText string
		wantErr  bool
		want     store.AuditResult
	}{policy, elicit, wantText, wantErr, want}
	{
		{
			called := false
			reg := tools.NewRegistry(nil)
			reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{tool("write", destructive, func(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
				called = true
				return tools.TextResult(string(req.Arguments)), nil
			})})
			audit := &auditLog{}
			srv := newServer(t, reg, testGate(audit, tt.policy), nil)
			var asked []string
			var opts mcp.ClientOptions
			if tt.elicit != nil {
				opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return tt.elicit(ctx, req)
				}
			}
			var cs *mcp.ClientSession
			switch transport {
			case "http":
				cs = connectHTTP(t, serveHTTP(t, srv).URL, "alice", &opts)
			case "http-2026":
				cs = connectHTTPVersion(t, serveHTTP(t, srv).URL, "alice", "2026-07-28", &opts)
			default:
				cs = connectStdio(t, srv, &opts)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files__write", Arguments: map[string]any{"path": "/tmp/x"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if !strings.Contains(text(res), tt.wantText) || res.IsError != tt.wantErr {
				t.Errorf("result %v %q, want IsError %v and text containing %q", res.IsError, text(res), tt.wantErr, tt.wantText)
			}
			if wantCalled := tt.want.Outcome == store.OutcomeOK; called != wantCalled {
				t.Errorf("tool called: %v, want %v", called, wantCalled)
			}
			if tt.policy == mcpserve.ActionAsk && tt.elicit != nil {
				wantQ := "Allow Switchboard to call the tool files__write (tool \"write\" of mcp server \"files\")? It may change or delete data.\nArguments:\n{\n  \"path\": \"/tmp/x\"\n}"
				if diff := cmp.Diff([]string{wantQ}, asked); diff != "" {
					t.Errorf("approval question mismatch (-want +got):\n%s", diff)
				}
			}
			// The test's HTTP caller has ID and name alice; the stdio
			// caller is the local user, who has no ID.
			user, userID := "alice", "alice"
			if transport == "stdio" {
				user, userID = "local", ""
			}
			wantRec := []store.AuditRecord{{
				User: user, UserID: userID, Tool: "files__write", Server: "files",
				Arguments: json.RawMessage(`{"path":"/tmp/x"}`), Agent: "mcp:" + strings.TrimSuffix(transport, "-2026"),
				Approval: tt.want.Approval, // the record is begun once the decision is known
			}}
			audit.mu.Lock()
			gotRec := audit.begun
			audit.mu.Unlock()
			if diff := cmp.Diff(wantRec, gotRec, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ConversationID" }, cmp.Ignore())); diff != "" {
				t.Errorf("audit begin mismatch (-want +got):\n%s", diff)
			}
			if len(gotRec) == 1 && (gotRec[0].ConversationID == "") != (transport != "http") {
				t.Errorf("audit record has session ID %q over %s", gotRec[0].ConversationID, transport)
			}
			// A refusal's record keeps why; the test checks the text the
			// caller got instead.
			got := audit.outcomes()
			if r, ok := got["files__write#1"]; ok && r.Outcome == store.OutcomeDenied && strings.Contains(r.Error, tt.wantText) {
				r.Error = ""
				got["files__write#1"] = r
			}
			if diff := cmp.Diff(map[string]store.AuditResult{"files__write#1": tt.want}, got); diff != "" {
				t.Errorf("audit outcome mismatch (-want +got):\n%s", diff)
			}
		}
	}
}

// TestDefaultPolicy checks that without a policy read-only tools run and
// others ask, here over stdio with a client that cannot be asked.
func TestDefaultPolicy(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	cs := connectStdio(t, srv, nil)
	tests := []struct {
		tool    string
		wantErr bool
	}{
		{tool: "files__read"},
		{tool: "calculator"},
		{tool: "files__write", wantErr: true},
		{tool: "mail__send", wantErr: true},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{"path": "p"}})
		if err != nil {
			t.Fatalf("calling %s: %v", tt.tool, err)
		}
		if res.IsError != tt.wantErr {
			t.Errorf("calling %s: IsError %v (%q), want %v", tt.tool, res.IsError, text(res), tt.wantErr)
		}
	}
}

// TestAuditFailureRefusesCall checks that a call that cannot be audited is
// not made.
func TestAuditFailureRefusesCall(t *testing.T) {
	called := false
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("t", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		called = true
		return tools.TextResult("ran"), nil
	})})
	srv := newServer(t, reg, testGate(&auditLog{failing: true}, ""), nil)
	cs := connectStdio(t, srv, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "t"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if !res.IsError || called || !strings.Contains(text(res), "audit") {
		t.Errorf("result %v %q, tool called %v; want a refusal naming the audit and no call", res.IsError, text(res), called)
	}
}

// TestApprovalTimeout checks that an unanswered approval question ends the
// call with a refusal after ApprovalTimeout. The timeout applies where
// Switchboard waits for the answer, sessions before protocol 2026-07-28;
// later ones answer between the rounds of the call.
func TestApprovalTimeout(t *testing.T) {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("rm", destructive, nil)})
	srv := newServer(t, reg, nil, &mcpserve.Options{ApprovalTimeout: 50 * time.Millisecond})
	release := make(chan struct{})
	cs := connectHTTP(t, serveHTTP(t, srv).URL, "alice", &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select { // a person who never answers, until the test ends
		case <-ctx.Done():
		case <-release:
		}
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}})
	t.Cleanup(func() { close(release) }) // before the client closes, which waits for this handler
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if !res.IsError || !strings.Contains(text(res), "nobody answered the approval question within 50ms") {
		t.Errorf("result %v %q, want a refusal after the timeout", res.IsError, text(res))
	}
}

// TestApprovalAnswerBoundToCall checks, with a client that handles input
// requests itself, that an answer given for one call does not approve a
// call with other arguments.
func TestApprovalAnswerBoundToCall(t *testing.T) {
	called := 0
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("rm", destructive, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		called++
		return tools.TextResult("removed"), nil
	})})
	srv := newServer(t, reg, nil, nil)
	cs := connectStdio(t, srv, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		// Declares elicitation; never called, since this test answers itself.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, errAudit },
	})
	first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"path": "a"}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round %+v, want one input request and a request state", first)
	}
	yes := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		yes[id] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{name: "other arguments", args: map[string]any{"path": "/"}, want: "the approval answer was given for another call"},
		{name: "same arguments", args: map[string]any{"path": "a"}, want: "removed"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: tt.args, InputResponses: yes, RequestState: first.RequestState})
		if err != nil {
			t.Fatalf("%s: CallTool: %v", tt.name, err)
		}
		if !strings.Contains(text(res), tt.want) {
			t.Errorf("%s: result %q, want %q", tt.name, text(res), tt.want)
		}
	}
	if called != 1 {
		t.Errorf("tool called %d times, want once", called)
	}
}
