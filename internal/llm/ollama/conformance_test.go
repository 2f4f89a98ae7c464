package ollama_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) { llmtest.Run(t, harness()) }

func harness() llmtest.Harness {
	return llmtest.Harness{
		Name:  "ollama",
		Model: "llama3.2",
		NewProvider: func(t *testing.T, baseURL string, opts llm.HTTPOptions) llm.Provider {
			c, err := ollama.New(&ollama.Options{Host: baseURL, HTTPOptions: opts})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		Stream:            streamBody,
		StreamContentType: "application/x-ndjson",
		GeneratesIDs:      true,
		Error: func(c llmtest.ErrorCase) (int, []byte) {
			switch c {
			case llmtest.ErrorAuth:
				return 401, []byte(`{"error":"unauthorized"}`)
			case llmtest.ErrorRateLimit:
				return 429, []byte(`{"error":"too many requests"}`)
			case llmtest.ErrorServer:
				return 503, []byte(`{"error":"server busy, please try again.  maximum pending requests exceeded"}`)
			case llmtest.ErrorContextTooLong:
				return 400, []byte(`{"error":"the input length exceeds the context length"}`)
			default:
				return 400, []byte(`{"error":"registry.ollama.ai/library/gemma2:2b does not support tools"}`)
			}
		},
		Malformed: func() [][]byte {
			return [][]byte{line(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": "ok"}, "done": false}), []byte("{not json\n")}
		},
		CheckToolResults: checkToolResults,
	}
}

func line(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func message(content string, calls []any) map[string]any {
	m := map[string]any{"role": "assistant", "content": content}
	if calls != nil {
		m["tool_calls"] = calls
	}
	return map[string]any{"model": "llama3.2", "created_at": "2026-11-22T13:00:00.000000Z", "message": m, "done": false}
}

// streamBody renders a turn as /api/chat streams it: one line per text
// delta, one line with the tool calls (arguments as objects), and the done
// line with counts and done_reason.
func streamBody(turn llmtest.Turn) [][]byte {
	var out [][]byte
	for _, s := range turn.Text {
		out = append(out, line(message(s, nil)))
	}
	if len(turn.ToolCalls) > 0 {
		var calls []any
		for i, c := range turn.ToolCalls {
			calls = append(calls, map[string]any{"function": map[string]any{"index": i, "name": c.Name, "arguments": json.RawMessage(c.Arguments())}})
		}
		out = append(out, line(message("", calls)))
	}
	reason := map[llm.StopReason]string{llm.StopEndTurn: "stop", llm.StopToolUse: "stop", llm.StopMaxTokens: "length"}[turn.StopReason()]
	last := message("", nil)
	last["done"] = true
	last["done_reason"] = reason
	last["total_duration"] = 1234567
	if turn.Usage != (llm.Usage{}) {
		last["prompt_eval_count"] = turn.Usage.InputTokens
		last["eval_count"] = turn.Usage.OutputTokens
	}
	return append(out, line(last))
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
		{"role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"function": map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}},
			map[string]any{"function": map[string]any{"name": "get_time", "arguments": map[string]any{"tz": "Europe/Paris"}}},
		}},
		{"role": "tool", "tool_name": "get_weather", "content": "18C, cloudy"},
		{"role": "tool", "tool_name": "get_time", "content": "Error: unknown time zone"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	wantTool := map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "Weather for a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
	}}
	if len(got.Tools) != 2 {
		t.Fatalf("tools = %v, want two", got.Tools)
	}
	if diff := cmp.Diff(wantTool, got.Tools[0]); diff != "" {
		t.Errorf("tool mismatch (-want +got):\n%s", diff)
	}
	if !got.Stream || got.Model != "llama3.2" {
		t.Errorf("stream = %v, model = %q; want true, llama3.2", got.Stream, got.Model)
	}
}
