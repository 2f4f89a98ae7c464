package anthropic_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// TestToolResultImages checks an image a tool returns goes inside the
// tool_result block, whose content the Messages API takes as a list of text
// and image blocks, with the result's error flag kept.
func TestToolResultImages(t *testing.T) {
	call := llm.ToolCall{ID: "toolu_9", Name: "shot", Arguments: []byte(`{}`)}
	req := &llm.Request{Model: "claude-x", Messages: []llm.Message{
		llm.UserText("shoot"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, IsError: true, Content: []llm.Part{
			llm.TextPart("blurred"), llm.ImagePart("image/webp", []byte{1, 2, 3}),
		}},
	}}
	var got map[string]any
	srv := llmtest.NewServer(t, llmtest.Reply{
		Chunks: raw(`{"type":"message_start","message":{"usage":{"input_tokens":1}}}`, `{"type":"message_stop"}`),
		Check: func(t testing.TB, _ *http.Request, body []byte) {
			if err := json.Unmarshal(body, &got); err != nil {
				t.Errorf("request is not JSON: %v", err)
			}
		},
	})
	if _, err := llm.Collect(anthropic.New(&anthropic.Options{BaseURL: srv.URL + "/v1/"}).Stream(ctx(t), req)); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": "toolu_9", "is_error": true, "content": []any{
			map[string]any{"type": "text", "text": "blurred"},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/webp", "data": "AQID"}},
		},
	}}}
	msgs, _ := got["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("got %d messages, want 3: %v", len(msgs), msgs)
	}
	if diff := cmp.Diff(want, msgs[2]); diff != "" {
		t.Errorf("tool result mismatch (-want +got):\n%s", diff)
	}
}
