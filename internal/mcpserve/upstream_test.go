package mcpserve_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestUpstreamServer runs the whole chain with real parts: a go-sdk client
// talks HTTP to the gateway, whose catalogue holds the tools of a real stdio
// MCP server (this test binary re-executed) connected by mcphost. Results,
// progress, cancellation and list changes cross both hops.
func TestUpstreamServer(t *testing.T) {
	reg := tools.NewRegistry(nil)
	sc := mcptest.StdioServer(t, "up")
	pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, &mcphost.Options{
		PingInterval:   -1,
		OnToolsChanged: func(server string, ts []tools.Tool) { reg.Set(tools.Source{Kind: tools.KindMCP, Server: server}, ts) },
	})
	pool.Start(t.Context())
	t.Cleanup(func() { pool.Close() })
	if _, ok := reg.Lookup("up__echo"); !ok {
		t.Fatalf("upstream tools not in the catalogue: %v", pool.Status())
	}

	srv := newServer(t, reg, testGate(nil, mcpserve.ActionAllow), nil)
	changed := make(chan struct{}, 10)
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	cs := connectHTTP(t, serveHTTP(t, srv).URL, "alice", &mcp.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params },
	})

	t.Run("rich result", func(t *testing.T) {
		got, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up__rich"})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		want := &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "hello"},
			&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "doc body"}},
			&mcp.ResourceLink{URI: "test://other", Name: "other", MIMEType: "text/plain"},
		}, StructuredContent: map[string]any{"ok": true}}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(mcp.CallToolResult{})); diff != "" {
			t.Errorf("result mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("progress", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "up__progress", Arguments: map[string]any{"steps": 3}}
		params.SetProgressToken(7)
		if _, err := cs.CallTool(t.Context(), params); err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		for {
			select {
			case p := <-progress:
				if p.Progress == 3 {
					if p.Total != 3 || p.Message != "step 3" {
						t.Errorf("last progress %+v, want 3/3 step 3", p)
					}
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatal("last progress not received within 10s")
			}
		}
	})

	t.Run("cancellation reaches the upstream server", func(t *testing.T) {
		events := mcptest.EventsFile(sc)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up__hang", Arguments: map[string]any{"id": "c1"}})
			done <- err
		}()
		mcptest.WaitEvent(t, events, "hang c1", 10*time.Second)
		cancel()
		mcptest.WaitEvent(t, events, "cancelled c1", 10*time.Second)
		if err := <-done; err == nil {
			t.Error("cancelled call returned no error")
		}
	})

	t.Run("list changed upstream", func(t *testing.T) {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up__register", Arguments: map[string]any{"name": "late"}}); err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		deadline := time.After(10 * time.Second)
		for {
			select {
			case <-changed:
			case <-deadline:
				t.Fatal("up__late not listed within 10s")
			}
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if slices.Contains(toolNames(res.Tools), "up__late") {
				break
			}
		}
		got, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up__late"})
		if err != nil || text(got) != "late late" {
			t.Errorf("calling up__late: %q %v, want late late", text(got), err)
		}
	})
}
