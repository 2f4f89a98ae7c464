package openai_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) { llmtest.Run(t, harness()) }

func harness() llmtest.Harness {
	return llmtest.Harness{
		Name:  "openai",
		Model: "gpt-test",
		NewProvider: func(t *testing.T, baseURL string, opts llm.HTTPOptions) llm.Provider {
			return openai.New(&openai.Options{BaseURL: baseURL, APIKey: "sk-test", HTTPOptions: opts})
		},
		Stream: streamBody,
		Error: func(c llmtest.ErrorCase) (int, []byte) {
			switch c {
			case llmtest.ErrorAuth:
				return 401, []byte(`{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			case llmtest.ErrorRateLimit:
				return 429, []byte(`{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			case llmtest.ErrorServer:
				return 500, []byte(`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)
			case llmtest.ErrorContextTooLong:
				return 400, []byte(`{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
			default:
				return 400, []byte(`{"error":{"message":"registry.ollama.ai/library/gemma2:2b does not support tools","type":"api_error","param":null,"code":null}}`)
			}
		},
		Malformed: func() [][]byte {
			return [][]byte{
				[]byte(`data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}` + "\n\n"),
				[]byte("data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\n\n"),
			}
		},
		CheckToolResults:    checkToolResults,
		RetriesBeforeOutput: true,
	}
}

// chunkJSON renders one chat.completion.chunk as an SSE event.
func chunkJSON(delta any, finish any, usage any) []byte {
	c := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
	}
	if usage != nil {
		c["choices"] = []any{}
		c["usage"] = usage
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	return []byte("data: " + string(b) + "\n\n")
}

// streamBody renders a turn as OpenAI streams it: a role chunk, content
// deltas, tool calls (id, type and name first, then argument pieces), the
// finish chunk, the usage chunk (include_usage) and [DONE].
func streamBody(turn llmtest.Turn) [][]byte {
	out := [][]byte{chunkJSON(map[string]any{"role": "assistant", "content": ""}, nil, nil)}
	for _, s := range turn.Text {
		out = append(out, chunkJSON(map[string]any{"content": s}, nil, nil))
	}
	for i, c := range turn.ToolCalls {
		out = append(out, chunkJSON(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil, nil))
		for _, a := range c.ArgChunks {
			out = append(out, chunkJSON(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": a},
			}}}, nil, nil))
		}
	}
	finish := map[llm.StopReason]string{
		llm.StopEndTurn: "stop", llm.StopToolUse: "tool_calls", llm.StopMaxTokens: "length", llm.StopContentFilter: "content_filter",
	}[turn.StopReason()]
	out = append(out, chunkJSON(map[string]any{}, finish, nil))
	if turn.Usage != (llm.Usage{}) {
		out = append(out, chunkJSON(nil, nil, map[string]any{
			"prompt_tokens": turn.Usage.InputTokens, "completion_tokens": turn.Usage.OutputTokens,
			"total_tokens": turn.Usage.Total(),
		}))
	}
	return append(out, []byte("data: [DONE]\n\n"))
}

func checkToolResults(t *testing.T, body []byte) {
	var got struct {
		Model    string           `json:"model"`
		Stream   bool             `json:"stream"`
		Messages []map[string]any `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	want := []map[string]any{
		{"role": "system", "content": "You are terse."},
		{"role": "user", "content": "Weather and time in Paris?"},
		{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}},
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "get_time", "arguments": `{"tz":"Europe/Paris"}`}},
		}},
		{"role": "tool", "tool_call_id": "call_1", "content": "18C, cloudy"},
		{"role": "tool", "tool_call_id": "call_2", "content": "Error: unknown time zone"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if len(got.Tools) != 2 || fmt.Sprint(got.Tools[0]["type"]) != "function" {
		t.Errorf("tools = %v, want two function tools", got.Tools)
	}
	if !got.Stream || got.Model != "gpt-test" {
		t.Errorf("stream = %v, model = %q; want true, gpt-test", got.Stream, got.Model)
	}
}
