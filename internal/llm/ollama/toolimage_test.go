package ollama_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
)

// TestToolResultImages checks an image a tool returns travels on the tool
// message itself: /api/chat messages of every role carry base64 images in
// "images", and the tool message names its tool in "tool_name".
func TestToolResultImages(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "shot", Arguments: []byte(`{}`)}
	req := &llm.Request{Messages: []llm.Message{
		llm.UserText("shoot"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		{Role: llm.RoleTool, ToolCallID: call.ID, Content: []llm.Part{llm.TextPart("here"), llm.ImagePart("image/png", []byte{1, 2, 3})}},
	}}
	srv := llmtest.NewServer(t, ndjson(doneLine))
	c := newClient(t, srv, ollama.Options{})
	if _, err := llm.Collect(c.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	var got struct{ Messages []map[string]any }
	if err := json.Unmarshal(srv.Requests()[0].Body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"role": "tool", "content": "here", "tool_name": "shot", "images": []any{"AQID"}}
	if len(got.Messages) != 3 {
		t.Fatalf("got %d messages, want 3: %v", len(got.Messages), got.Messages)
	}
	if diff := cmp.Diff(want, got.Messages[2]); diff != "" {
		t.Errorf("tool message mismatch (-want +got):\n%s", diff)
	}
}
