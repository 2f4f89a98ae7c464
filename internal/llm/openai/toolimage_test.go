package openai_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
)

// requestBody runs req against a fake Chat Completions server and returns
// the JSON body the server received.
func requestBody(t *testing.T, req *llm.Request) (map[string]any, error) {
	t.Helper()
	var got map[string]any
	srv := llmtest.NewServer(t, llmtest.Reply{
		Chunks: sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`),
		Check: func(t testing.TB, _ *http.Request, body []byte) {
			if err := json.Unmarshal(body, &got); err != nil {
				t.Errorf("request is not JSON: %v", err)
			}
		},
	})
	_, err := llm.Collect(openai.New(&openai.Options{BaseURL: srv.URL, Model: "gpt-4o"}).Stream(ctx(t), req))
	return got, err
}

// TestToolResultImages checks that images a tool returns reach the model.
// The Chat Completions reference allows only text parts in a tool message
// (ChatCompletionRequestToolMessageContentPart is text only) and requires
// every tool message to follow the assistant message with the calls, so the
// images go in one user message after the run of tool messages, as
// image_url parts with base64 data: URLs.
func TestToolResultImages(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "call_1", Name: "shot", Arguments: json.RawMessage(`{}`)},
		{ID: "call_2", Name: "tiny", Arguments: json.RawMessage(`{}`)},
	}
	req := &llm.Request{Messages: []llm.Message{
		llm.UserText("show me"),
		{Role: llm.RoleAssistant, ToolCalls: calls},
		{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "shot", Content: []llm.Part{
			llm.TextPart("a screenshot "), llm.ImagePart("image/png", []byte{0x89, 'P', 'N', 'G'}),
		}},
		{Role: llm.RoleTool, ToolCallID: "call_2", ToolName: "tiny", Content: []llm.Part{
			llm.ImagePart("image/jpeg", []byte{0xff, 0xd8}), llm.ImageURLPart("https://example.com/b.png"),
		}},
		llm.UserText("what do you see?"),
	}}
	got, err := requestBody(t, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"role": "user", "content": "show me"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "shot", "arguments": "{}"}},
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "tiny", "arguments": "{}"}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "a screenshot [image 1 of this result: sent in the next user message]"},
		map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "[image 1 of this result: sent in the next user message][image 2 of this result: sent in the next user message]"},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "The shot tool result (call call_1) included 1 image(s):"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw=="}},
			map[string]any{"type": "text", "text": "The tiny tool result (call call_2) included 2 image(s):"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/jpeg;base64,/9g="}},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/b.png"}},
		}},
		map[string]any{"role": "user", "content": "what do you see?"},
	}
	if diff := cmp.Diff(want, got["messages"]); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
}

// TestToolResultImageLast checks the images of the last tool messages
// still follow them when no other message comes after.
func TestToolResultImageLast(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		llm.UserText("look"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "shot"}}},
		{Role: llm.RoleTool, ToolCallID: "c", ToolName: "shot", IsError: true, Content: []llm.Part{
			llm.TextPart("partial"), llm.ImagePart("image/gif", []byte("GIF8")),
		}},
	}}
	got, err := requestBody(t, req)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := got["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("got %d messages, want 4: %v", len(msgs), msgs)
	}
	if tool := msgs[2].(map[string]any); !strings.HasPrefix(tool["content"].(string), "Error: partial[image 1") {
		t.Errorf("tool message = %v, want the error marked and the image named", tool)
	}
	user := msgs[3].(map[string]any)
	parts, _ := user["content"].([]any)
	if user["role"] != "user" || len(parts) != 2 ||
		parts[1].(map[string]any)["image_url"].(map[string]any)["url"] != "data:image/gif;base64,R0lGOA==" {
		t.Errorf("last message = %v, want a user message carrying the GIF", user)
	}
}

// TestToolResultImageInvalid checks a tool image the wire cannot carry is
// an error, never dropped.
func TestToolResultImageInvalid(t *testing.T) {
	req := &llm.Request{Model: "m", Messages: []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "shot"}}},
		{Role: llm.RoleTool, ToolCallID: "c", ToolName: "shot", Content: []llm.Part{{Type: llm.PartImage, Data: []byte{1}}}},
	}}
	p := openai.New(&openai.Options{BaseURL: "http://127.0.0.1:1", Model: "m"})
	_, err := llm.Collect(p.Stream(ctx(t), req))
	if err == nil || !strings.Contains(err.Error(), "image without a MIME type") {
		t.Errorf("error = %v, want the image refused", err)
	}
}
