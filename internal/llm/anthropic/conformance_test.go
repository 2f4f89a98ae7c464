package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) { llmtest.Run(t, harness()) }

func harness() llmtest.Harness {
	return llmtest.Harness{
		Name:  "anthropic",
		Model: "claude-test",
		NewProvider: func(t *testing.T, baseURL string, opts llm.HTTPOptions) llm.Provider {
			return anthropic.New(&anthropic.Options{BaseURL: baseURL, APIKey: "sk-ant-test", HTTPOptions: opts})
		},
		Stream: streamBody,
		Error: func(c llmtest.ErrorCase) (int, []byte) {
			switch c {
			case llmtest.ErrorAuth:
				return 401, []byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			case llmtest.ErrorRateLimit:
				return 429, []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
			case llmtest.ErrorServer:
				return 529, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			case llmtest.ErrorContextTooLong:
				return 400, []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`)
			default:
				// Anthropic models all take tools; a compatible proxy may not.
				return 400, []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"this model does not support tools"}}`)
			}
		},
		Malformed: func() [][]byte {
			b := streamBody(llmtest.Turn{Text: []string{"ok"}})
			return append(b[:3:3], []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\n\n"))
		},
		CheckToolResults:    checkToolResults,
		RetriesBeforeOutput: true,
	}
}

func event(typ string, v map[string]any) []byte {
	v["type"] = typ
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return []byte("event: " + typ + "\ndata: " + string(b) + "\n\n")
}

// streamBody renders a turn as the Messages API streams it.
func streamBody(turn llmtest.Turn) [][]byte {
	startOut := 1 // the API reports one output token at the start
	if turn.Usage == (llm.Usage{}) {
		startOut = 0
	}
	out := [][]byte{event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "content": []any{}, "model": "claude-test",
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": turn.Usage.InputTokens, "output_tokens": startOut},
	}})}
	idx := 0
	if len(turn.Text) > 0 {
		out = append(out, event("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}}))
		out = append(out, event("ping", map[string]any{}))
		for _, s := range turn.Text {
			out = append(out, event("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": s}}))
		}
		out = append(out, event("content_block_stop", map[string]any{"index": idx}))
		idx++
	}
	for _, c := range turn.ToolCalls {
		out = append(out, event("content_block_start", map[string]any{
			"index":         idx,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}},
		}))
		out = append(out, event("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}}))
		for _, a := range c.ArgChunks {
			out = append(out, event("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": a}}))
		}
		out = append(out, event("content_block_stop", map[string]any{"index": idx}))
		idx++
	}
	stop := map[llm.StopReason]string{
		llm.StopEndTurn: "end_turn", llm.StopToolUse: "tool_use", llm.StopMaxTokens: "max_tokens",
		llm.StopSequence: "stop_sequence", llm.StopContentFilter: "refusal",
	}[turn.StopReason()]
	out = append(out, event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": turn.Usage.OutputTokens},
	}))
	return append(out, event("message_stop", map[string]any{}))
}

func checkToolResults(t *testing.T, body []byte) {
	var got struct {
		Model     string           `json:"model"`
		MaxTokens int              `json:"max_tokens"`
		System    string           `json:"system"`
		Stream    bool             `json:"stream"`
		Messages  []map[string]any `json:"messages"`
		Tools     []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	want := []map[string]any{
		{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Weather and time in Paris?"}}},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
			map[string]any{"type": "tool_use", "id": "call_2", "name": "get_time", "input": map[string]any{"tz": "Europe/Paris"}},
		}},
		{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "call_1", "content": []any{map[string]any{"type": "text", "text": "18C, cloudy"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "unknown time zone"}}},
		}},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if got.System != "You are terse." || got.MaxTokens != anthropic.DefaultMaxTokens || !got.Stream || got.Model != "claude-test" {
		t.Errorf("system %q, max_tokens %d, stream %v, model %q; want the system prompt, %d, true, claude-test",
			got.System, got.MaxTokens, got.Stream, got.Model, anthropic.DefaultMaxTokens)
	}
	if len(got.Tools) != 2 || got.Tools[0]["input_schema"] == nil {
		t.Errorf("tools = %v, want two tools with input_schema", got.Tools)
	}
}
