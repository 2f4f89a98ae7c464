package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// catalogue fills a registry with a built-in and two servers' tools.
func catalogue() *tools.Registry {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("calculator", readOnly, nil)})
	f := false
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{
		tool("read", readOnly, nil),
		&tools.Func{Run: echo, Spec: tools.Info{
			Name: "write", Title: "Write a file", Description: "writes",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
			Annotations:  &tools.Annotations{Title: "Write", DestructiveHint: &f, IdempotentHint: true},
		}},
	})
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "mail"}, []tools.Tool{tool("send", destructive, nil)})
	return reg
}

// TestListDescribesCatalogue checks that tools/list carries catalogue
// names, descriptions, schemas and annotations, over both transports.
func TestListDescribesCatalogue(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	ts := serveHTTP(t, srv)
	sessions := map[string]*mcp.ClientSession{
		"http":  connectHTTP(t, ts.URL, "alice", nil),
		"stdio": connectStdio(t, srv, nil),
	}
	f := false
	want := []*mcp.Tool{
		{Name: "calculator", Description: "the calculator tool", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "files__read", Description: "the read tool", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{
			Name: "files__write", Title: "Write a file", Description: "writes",
			InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
			OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
			Annotations:  &mcp.ToolAnnotations{Title: "Write", DestructiveHint: &f, IdempotentHint: true},
		},
		{Name: "mail__send", Description: "the send tool", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{Title: "Write"}},
	}
	for name, cs := range sessions {
		t.Run(name, func(t *testing.T) {
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if diff := cmp.Diff(want, res.Tools); diff != "" {
				t.Errorf("tools/list mismatch (-want +got):\n%s", diff)
			}
			got, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files__read", Arguments: map[string]any{"x": 1}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if got.IsError || text(got) != `{"x":1}` {
				t.Errorf("files__read returned %v %q, want the echoed arguments", got.IsError, text(got))
			}
		})
	}
}

// TestPermissionsFilterListAndCall checks that a caller neither sees nor can
// call the tools its permissions exclude, while another caller can.
func TestPermissionsFilterListAndCall(t *testing.T) {
	audit := &auditLog{}
	noMail := func(_ context.Context, c *gate.Caller, e tools.Entry) error {
		if c.ID == "admin" || e.Origin.Server != "mail" {
			return nil
		}
		return errors.New("mail is for admins")
	}
	srv := mcpserve.New(catalogue(), gate.New(&gate.Options{
		Holds: []gate.Hold{noMail}, Policy: gate.Policy{Mode: gate.ModeAllowAll}, Audit: audit,
	}), nil)
	ts := serveHTTP(t, srv)
	tests := []struct {
		caller   string
		want     []string
		sendFail bool
	}{
		{caller: "bob", want: []string{"calculator", "files__read", "files__write"}, sendFail: true},
		{caller: "admin", want: []string{"calculator", "files__read", "files__write", "mail__send"}},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			cs := connectHTTP(t, ts.URL, tt.caller, nil)
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if diff := cmp.Diff(tt.want, toolNames(res.Tools)); diff != "" {
				t.Errorf("tools/list mismatch (-want +got):\n%s", diff)
			}
			_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "mail__send"})
			if (err != nil) != tt.sendFail {
				t.Errorf("calling mail__send: error %v, want failure %v", err, tt.sendFail)
			}
		})
	}
	want := map[string]store.AuditResult{
		"mail__send#1": {Outcome: store.OutcomeDenied, Approval: store.AuditForbidden, Error: "the caller's permissions do not include this tool"},
		"mail__send#2": {Outcome: store.OutcomeOK, Approval: store.AuditAutoApproved, ResultBytes: 2},
	}
	if diff := cmp.Diff(want, audit.outcomes()); diff != "" {
		t.Errorf("audit mismatch (-want +got):\n%s", diff)
	}
}

// TestListChanged checks that a registry change reaches connected clients
// as notifications/tools/list_changed, and that listing again shows it.
func TestListChanged(t *testing.T) {
	reg := catalogue()
	srv := newServer(t, reg, nil, nil)
	ts := serveHTTP(t, srv)
	changed := make(chan struct{}, 10)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}
	sessions := map[string]*mcp.ClientSession{
		"http":  connectHTTP(t, ts.URL, "alice", opts),
		"stdio": connectStdio(t, srv, opts),
	}
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "mail"}, nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "web"}, []tools.Tool{tool("fetch", readOnly, nil)})
	for range sessions {
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatal("no notifications/tools/list_changed within 10s")
		}
	}
	want := []string{"calculator", "files__read", "files__write", "web__fetch"}
	for name, cs := range sessions {
		// The SDK debounces: the notification may come before the second
		// change is applied, so poll until the list settles.
		deadline := time.Now().Add(10 * time.Second)
		for {
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("%s: ListTools: %v", name, err)
			}
			diff := cmp.Diff(want, toolNames(res.Tools))
			if diff == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: tools/list mismatch (-want +got):\n%s", name, diff)
			}
			select {
			case <-changed:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// TestUnservableToolsLeftOut checks that tools MCP cannot describe (an
// input schema that is not an object, a header annotation the SDK refuses)
// are left out of the listing while the rest are served.
func TestUnservableToolsLeftOut(t *testing.T) {
	reg := tools.NewRegistry(nil)
	schema := func(name, s string) tools.Tool {
		return &tools.Func{Run: echo, Spec: tools.Info{Name: name, InputSchema: json.RawMessage(s)}}
	}
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "odd"}, []tools.Tool{
		schema("ok", `{"type":"object"}`),
		schema("string", `{"type":"string"}`),
		schema("header", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":5}}}`),
	})
	var logs bytes.Buffer
	srv := newServer(t, reg, nil, &mcpserve.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	// New serves the catalogue before it returns, so the log is complete.
	if got := strings.Count(logs.String(), "tool not served"); got != 2 {
		t.Errorf("%d tools reported as not served, want 2; log:\n%s", got, logs.String())
	}
	cs := connectStdio(t, srv, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if diff := cmp.Diff([]string{"odd__ok"}, toolNames(res.Tools)); diff != "" {
		t.Errorf("tools/list mismatch (-want +got):\n%s", diff)
	}
}
