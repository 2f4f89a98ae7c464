package mcphost_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestStdioToolsAndCalls(t *testing.T) {
	sc := mcptest.StdioServer(t, "test")
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)

	st := statusOf(t, p, "test")
	if st.State != mcphost.StateReady {
		t.Fatalf("state = %s (%s), want ready; stderr %q", st.State, st.LastError, st.Stderr)
	}
	if st.ServerName != "mcptest" || st.ServerVersion != "1.2.3" || st.Instructions == "" || st.ProtocolVersion == "" || st.PID == 0 {
		t.Errorf("status lacks server details: %+v", st)
	}

	echo := findTool(t, p, "echo")
	if a := echo.Info().Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("echo annotations = %+v, want read-only", a)
	}
	if a := findTool(t, p, "add").Info().Annotations; a != nil {
		t.Errorf("add annotations = %+v, want nil (none sent)", a)
	}

	tests := []struct {
		name string
		tool string
		args any
		want *tools.Result
	}{
		{"text", "echo", map[string]any{"text": "hi"}, tools.TextResult("hi")},
		{"structured", "add", map[string]any{"a": 2, "b": 3}, &tools.Result{
			Content:    []tools.Content{{Type: tools.ContentText, Text: `{"sum":5}`}},
			Structured: []byte(`{"sum":5}`),
		}},
		{"tool error", "fail", nil, tools.ErrorResult("it broke")},
		{"every content kind", "rich", nil, &tools.Result{
			Content: []tools.Content{
				{Type: tools.ContentText, Text: "hello"},
				{Type: tools.ContentImage, Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
				{Type: tools.ContentAudio, Data: []byte("RIFF"), MIMEType: "audio/wav"},
				{Type: tools.ContentResource, URI: "test://doc", MIMEType: "text/plain", Text: "doc body"},
				{Type: tools.ContentResourceLink, URI: "test://other", Name: "other", MIMEType: "text/plain"},
			},
			Structured: []byte(`{"ok":true}`),
		}},
		{"invalid arguments", "add", map[string]any{"a": "not a number"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, findTool(t, p, tt.tool), tt.args)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if tt.want == nil {
				if !got.IsError {
					t.Fatalf("got %+v, want a tool error", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStdioDirectPath checks which path tools/call takes on stdio: the
// pipe's own (string ids "sb-N") for every protocol version, and the SDK's
// (numeric ids) only to answer a 2026-07-28 server that asks for input
// first.
func TestStdioDirectPath(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25", "2025-03-26"} {
		t.Run("version "+version, func(t *testing.T) {
			t.Parallel()
			sc := mcptest.StdioServer(t, "s", mcptest.ModeNormal, mcptest.ModeRecordCalls)
			sc.ProtocolVersion = version
			p := startPool(t, []mcphost.ServerConfig{sc}, nil)
			for range 3 {
				if res, err := call(t, findTool(t, p, "echo"), map[string]any{"text": "hi"}); err != nil || res.Text() != "hi" {
					t.Fatalf("echo: %v, %v", res, err)
				}
			}
			var ids []string
			for _, e := range mcptest.ReadEvents(mcptest.EventsFile(sc)) {
				if id, ok := strings.CutPrefix(e, "call "); ok {
					ids = append(ids, id)
				}
			}
			if diff := cmp.Diff([]string{`"sb-1"`, `"sb-2"`, `"sb-3"`}, ids); diff != "" {
				t.Errorf("tools/call ids mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("input required", func(t *testing.T) {
		t.Parallel()
		sc := mcptest.StdioServer(t, "s", mcptest.ModeNormal, mcptest.ModeRecordCalls)
		sc.Roots = []string{t.TempDir()}
		p := startPool(t, []mcphost.ServerConfig{sc}, nil)
		if st := statusOf(t, p, "s"); st.ProtocolVersion != "2026-07-28" {
			t.Skipf("the test server negotiated %s; input requests need 2026-07-28", st.ProtocolVersion)
		}
		res, err := call(t, findTool(t, p, "roots"), nil)
		if err != nil || !strings.HasPrefix(res.Text(), "file://") {
			t.Fatalf("roots: %v, %v", res, err)
		}
		var ids []string
		for _, e := range mcptest.ReadEvents(mcptest.EventsFile(sc)) {
			if id, ok := strings.CutPrefix(e, "call "); ok {
				ids = append(ids, id)
			}
		}
		if len(ids) < 2 || ids[0] != `"sb-1"` || strings.HasPrefix(ids[1], `"`) {
			t.Errorf("ids %q: want the pipe's first, then the SDK's numeric retry", ids)
		}
	})
}
