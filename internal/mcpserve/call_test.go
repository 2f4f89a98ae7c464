package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestCallResults checks how results, tool errors and Go errors of the
// catalogue come back as MCP results.
func TestCallResults(t *testing.T) {
	returning := func(res *tools.Result, err error) *tools.Func {
		return tool("t", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) { return res, err })
	}
	schema := &tools.Func{Run: echo, Spec: tools.Info{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}}
	tests := []struct {
		name string
		tool tools.Tool
		args any
		want *mcp.CallToolResult
	}{
		{
			name: "content kinds",
			tool: returning(&tools.Result{Content: []tools.Content{
				{Type: tools.ContentText, Text: "hello"},
				{Type: tools.ContentImage, Data: []byte{1, 2}, MIMEType: "image/png"},
				{Type: tools.ContentAudio, Data: []byte{3}, MIMEType: "audio/wav"},
				{Type: tools.ContentResource, URI: "file:///a.txt", MIMEType: "text/plain", Text: "a"},
				{Type: tools.ContentResource, URI: "file:///b.bin", Data: []byte{4}},
				{Type: tools.ContentResourceLink, URI: "file:///c", Name: "c", MIMEType: "text/plain"},
			}}, nil),
			want: &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "hello"},
				&mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte{3}, MIMEType: "audio/wav"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a"}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.bin", Blob: []byte{4}}},
				&mcp.ResourceLink{URI: "file:///c", Name: "c", MIMEType: "text/plain"},
			}},
		},
		{
			name: "structured and tool error",
			tool: returning(&tools.Result{Content: []tools.Content{{Type: tools.ContentText, Text: "bad"}}, Structured: json.RawMessage(`{"code":4}`), IsError: true}, nil),
			want: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "bad"}}, StructuredContent: map[string]any{"code": float64(4)}, IsError: true},
		},
		{
			name: "empty result",
			tool: returning(nil, nil),
			want: &mcp.CallToolResult{Content: []mcp.Content{}},
		},
		{
			name: "invalid arguments are a tool error from the registry",
			tool: schema,
			args: map[string]any{"n": "x"},
			want: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "invalid arguments for t: /n: expected integer, got string"}}, IsError: true},
		},
		{
			name: "unavailable backend",
			tool: returning(nil, tools.ErrUnavailable),
			want: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tool t is unavailable: the server that provides it is not connected right now; try again later"}}, IsError: true},
		},
		{
			name: "other error",
			tool: returning(nil, fmt.Errorf("disk on fire")),
			want: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `calling t failed: calling tool "t": disk on fire`}}, IsError: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tools.NewRegistry(nil)
			reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tt.tool})
			srv := newServer(t, reg, testGate(nil, mcpserve.ActionAllow), nil)
			cs := connectHTTP(t, serveHTTP(t, srv).URL, "alice", nil)
			got, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "t", Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(mcp.CallToolResult{})); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallUnknownTool checks that a name outside the catalogue is a
// protocol error, as for any MCP server.
func TestCallUnknownTool(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	cs := connectStdio(t, srv, nil)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("calling an unknown tool: error %v, want unknown tool", err)
	}
}

// TestProgressForwarded checks that the tool's progress reaches a client
// that sent a progress token, ending with the last report.
func TestProgressForwarded(t *testing.T) {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("work", readOnly, func(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
		if req.Progress == nil {
			return tools.TextResult("no observer"), nil
		}
		for i := 1; i <= 3; i++ {
			req.Progress(tools.Progress{Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
		}
		return tools.TextResult("done"), nil
	})})
	srv := newServer(t, reg, nil, nil)
	got := make(chan *mcp.ProgressNotificationParams, 10)
	cs := connectHTTP(t, serveHTTP(t, srv).URL, "alice", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { got <- r.Params },
	})

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "work"})
	if err != nil || text(res) != "no observer" {
		t.Fatalf("call without a token: %v %v, want no progress observer", text(res), err)
	}
	params := &mcp.CallToolParams{Name: "work"}
	params.SetProgressToken("tok")
	if _, err := cs.CallTool(t.Context(), params); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	// Intermediate reports may be merged; the last one always arrives.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-got:
			if p.ProgressToken != "tok" {
				t.Fatalf("progress token %v, want tok", p.ProgressToken)
			}
			if p.Progress == 3 {
				if diff := cmp.Diff(&mcp.ProgressNotificationParams{ProgressToken: "tok", Progress: 3, Total: 3, Message: "step 3"}, p); diff != "" {
					t.Errorf("last progress mismatch (-want +got):\n%s", diff)
				}
				return
			}
		case <-deadline:
			t.Fatal("last progress report not received within 10s")
		}
	}
}

// TestCancellationReachesTool checks that a client's cancellation ends the
// tool's context.
func TestCancellationReachesTool(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("hang", readOnly, func(ctx context.Context, _ *tools.CallRequest) (*tools.Result, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})})
	audit := &auditLog{}
	srv := newServer(t, reg, testGate(audit, ""), nil)
	cs := connectHTTP(t, serveHTTP(t, srv).URL, "alice", nil)

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("tool context ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled within 10s")
	}
	if err := <-errc; err == nil {
		t.Error("cancelled CallTool returned no error")
	}
	// Finish is recorded after the handler returns: poll for it.
	deadline := time.Now().Add(10 * time.Second)
	for len(audit.outcomes()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	out := audit.outcomes()["hang#1"]
	if out.Outcome != store.OutcomeCancelled || out.Approval != store.AuditAutoApproved {
		t.Errorf("audit outcome %+v, want a called tool, cancelled", out)
	}
}
