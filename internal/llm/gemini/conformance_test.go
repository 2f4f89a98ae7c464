package gemini_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/gemini"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) { llmtest.Run(t, harness()) }

func harness() llmtest.Harness {
	return llmtest.Harness{
		Name:  "gemini",
		Model: "gemini-test",
		NewProvider: func(t *testing.T, baseURL string, opts llm.HTTPOptions) llm.Provider {
			return gemini.New(&gemini.Options{BaseURL: baseURL, APIKey: "test-key", HTTPOptions: opts})
		},
		Stream:       streamBody,
		GeneratesIDs: true,
		Error: func(c llmtest.ErrorCase) (int, []byte) {
			switch c {
			case llmtest.ErrorAuth:
				return 400, []byte(`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`)
			case llmtest.ErrorRateLimit:
				return 429, []byte(`{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}`)
			case llmtest.ErrorServer:
				return 503, []byte(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
			case llmtest.ErrorContextTooLong:
				return 400, []byte(`{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`)
			default:
				return 400, []byte(`{"error":{"code":400,"message":"Function calling is not enabled for models/gemma-3-27b-it","status":"INVALID_ARGUMENT"}}`)
			}
		},
		Malformed: func() [][]byte {
			return [][]byte{
				event(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": "ok"}}, "")}}),
				[]byte("data: {\"candidates\": [{\"content\":\n\n"),
			}
		},
		CheckToolResults: checkToolResults,
	}
}

func event(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return []byte("data: " + string(b) + "\r\n\r\n") // Gemini ends events with CRLF
}

func candidate(parts []any, finish string) map[string]any {
	c := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		c["finishReason"] = finish
	}
	return c
}

// streamBody renders a turn as streamGenerateContent?alt=sse sends it: one
// response per text delta, the function calls whole in one response, and a
// last response with finishReason and usageMetadata.
func streamBody(turn llmtest.Turn) [][]byte {
	var out [][]byte
	for _, s := range turn.Text {
		out = append(out, event(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": s}}, "")}, "modelVersion": "gemini-test"}))
	}
	if len(turn.ToolCalls) > 0 {
		var parts []any
		for i, c := range turn.ToolCalls {
			p := map[string]any{"functionCall": map[string]any{"name": c.Name, "args": json.RawMessage(c.Arguments())}}
			if i == 0 {
				p["thoughtSignature"] = "c2lnbmF0dXJl"
			}
			parts = append(parts, p)
		}
		out = append(out, event(map[string]any{"candidates": []any{candidate(parts, "")}}))
	}
	finish := map[llm.StopReason]string{
		llm.StopEndTurn: "STOP", llm.StopToolUse: "STOP", llm.StopMaxTokens: "MAX_TOKENS", llm.StopContentFilter: "SAFETY",
	}[turn.StopReason()]
	last := map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": ""}}, finish)}}
	if turn.Usage != (llm.Usage{}) {
		last["usageMetadata"] = map[string]any{
			"promptTokenCount": turn.Usage.InputTokens, "candidatesTokenCount": turn.Usage.OutputTokens,
			"totalTokenCount": turn.Usage.Total(),
		}
	}
	return append(out, event(last))
}

func checkToolResults(t *testing.T, body []byte) {
	var got struct {
		Contents          []map[string]any `json:"contents"`
		SystemInstruction map[string]any   `json:"systemInstruction"`
		Tools             []struct {
			FunctionDeclarations []map[string]any `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	want := []map[string]any{
		{"role": "user", "parts": []any{map[string]any{"text": "Weather and time in Paris?"}}},
		{"role": "model", "parts": []any{
			map[string]any{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}},
			map[string]any{"functionCall": map[string]any{"name": "get_time", "args": map[string]any{"tz": "Europe/Paris"}}},
		}},
		{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": map[string]any{"output": "18C, cloudy"}}},
			map[string]any{"functionResponse": map[string]any{"name": "get_time", "response": map[string]any{"error": "unknown time zone"}}},
		}},
	}
	if diff := cmp.Diff(want, got.Contents); diff != "" {
		t.Errorf("contents mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"parts": []any{map[string]any{"text": "You are terse."}}}, got.SystemInstruction); diff != "" {
		t.Errorf("systemInstruction mismatch (-want +got):\n%s", diff)
	}
	if len(got.Tools) != 1 || len(got.Tools[0].FunctionDeclarations) != 2 {
		t.Fatalf("tools = %+v, want one tool with two function declarations", got.Tools)
	}
	wantDecl := map[string]any{
		"name": "get_weather", "description": "Weather for a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
	}
	if diff := cmp.Diff(wantDecl, got.Tools[0].FunctionDeclarations[0]); diff != "" {
		t.Errorf("function declaration mismatch (-want +got):\n%s", diff)
	}
}
