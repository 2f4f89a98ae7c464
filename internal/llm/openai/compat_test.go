package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
)

func sse(lines ...string) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte("data: " + l + "\n\n")
	}
	return out
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestCompatibleServers replays stream shapes seen from OpenAI-compatible
// servers that differ from OpenAI's own.
func TestCompatibleServers(t *testing.T) {
	tests := []struct {
		name   string
		chunks [][]byte
		want   *llm.Response
		noIDs  bool // the server sent no ids: check they were made up
	}{
		{
			name: "ollama: whole arguments as an object, index 0 reused for parallel calls, no usage",
			chunks: sse(
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"finish_reason":null}]}`,
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_b","index":0,"type":"function","function":{"name":"get_time","arguments":{"tz":"UTC"}}}]},"finish_reason":null}]}`,
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
				`[DONE]`),
			want: &llm.Response{
				Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
					{ID: "call_a", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)},
					{ID: "call_b", Name: "get_time", Arguments: []byte(`{"tz":"UTC"}`)},
				}},
				StopReason: llm.StopToolUse, RawStopReason: "stop",
			},
		},
		{
			name: "llama.cpp: no ids, arguments whole in one string, no [DONE]",
			chunks: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"now","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"now","arguments":"{\"tz\":\"UTC\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			want: &llm.Response{
				Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
					{Name: "now", Arguments: []byte(`{}`)},
					{Name: "now", Arguments: []byte(`{"tz":"UTC"}`)},
				}},
				StopReason: llm.StopToolUse, RawStopReason: "tool_calls",
			},
			noIDs: true,
		},
		{
			name: "interleaved fragments of two calls",
			chunks: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"a","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c1","type":"function","function":{"name":"b","arguments":"{\"y\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`[DONE]`),
			want: &llm.Response{
				Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
					{ID: "c0", Name: "a", Arguments: []byte(`{"x":1}`)},
					{ID: "c1", Name: "b", Arguments: []byte(`{"y":2}`)},
				}},
				StopReason: llm.StopToolUse, RawStopReason: "tool_calls",
			},
		},
		{
			name: "vllm/deepseek: reasoning_content surfaced apart from the answer, usage with details",
			chunks: sse(
				`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Think"}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning_content":"ing."}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"42"}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":20,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":15}}}`,
				`[DONE]`),
			want: &llm.Response{
				Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("42")}},
				Reasoning:  "Thinking.",
				Usage:      llm.Usage{InputTokens: 9, OutputTokens: 20, CacheReadTokens: 4, ReasoningTokens: 15},
				StopReason: llm.StopMaxTokens, RawStopReason: "length",
			},
		},
		{
			name: "comments, CRLF and an unknown finish reason",
			chunks: [][]byte{
				[]byte(": keep-alive\r\n\r\n"),
				[]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\r\n\r\n"),
				[]byte("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"eos_token\"}]}\r\n\r\ndata: [DONE]\r\n\r\n"),
			},
			want: &llm.Response{
				Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("hi")}},
				StopReason: llm.StopOther, RawStopReason: "eos_token",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Chunks: tt.chunks})
			p := openai.New(&openai.Options{BaseURL: srv.URL, Model: "m"})
			got, err := llm.Collect(p.Stream(ctx(t), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			opts := []cmp.Option{}
			if tt.noIDs {
				opts = append(opts, cmpopts.IgnoreFields(llm.ToolCall{}, "ID"))
				ids := map[string]bool{}
				for _, c := range got.Message.ToolCalls {
					if c.ID == "" || ids[c.ID] {
						t.Errorf("made-up id %q is empty or repeated", c.ID)
					}
					ids[c.ID] = true
				}
			}
			if diff := cmp.Diff(tt.want, got, opts...); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorChunkMidStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Chunks: sse(
		`{"choices":[{"index":0,"delta":{"content":"par"}}]}`,
		`{"error":{"message":"The server is overloaded","type":"server_error","code":"overloaded"}}`,
	)})
	p := openai.New(&openai.Options{BaseURL: srv.URL, Model: "m"})
	resp, err := llm.Collect(p.Stream(ctx(t), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	var e *llm.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "overloaded") {
		t.Fatalf("error = %v, want the provider's error", err)
	}
	if resp.Text() != "par" {
		t.Errorf("partial text = %q, want %q", resp.Text(), "par")
	}
}

func TestPlainTextErrorBody(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 404, Header: http.Header{"Content-Type": {"text/plain"}}, Chunks: [][]byte{[]byte("404 page not found")}})
	p := openai.New(&openai.Options{BaseURL: srv.URL, Model: "m"})
	_, err := llm.Collect(p.Stream(ctx(t), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindNotFound || e.Message != "404 page not found" {
		t.Errorf("error = %#v, want kind not_found with the body as message", err)
	}
}

func TestRequestEncoding(t *testing.T) {
	temp := 0.25
	req := &llm.Request{
		System: "Be brief.",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("Speak French.")}},
			{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("What is this?"), llm.ImagePart("image/png", []byte{0x89, 'P', 'N', 'G'})}},
		},
		Tools:       []llm.ToolSpec{{Name: "noop"}},
		ToolChoice:  llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "noop"},
		Temperature: &temp,
		MaxTokens:   100,
		Stop:        []string{"END"},
	}
	tests := []struct {
		name    string
		opts    openai.Options
		wantMax string
	}{
		{"compatible server", openai.Options{Model: "m", Headers: map[string]string{"X-Extra": "1"}}, "max_tokens"},
		{"explicit field", openai.Options{Model: "m", MaxTokensField: "max_completion_tokens"}, "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]any
			var hdr http.Header
			srv := llmtest.NewServer(t, llmtest.Reply{
				Chunks: sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`),
				Check: func(t testing.TB, r *http.Request, body []byte) {
					hdr = r.Header
					if err := json.Unmarshal(body, &got); err != nil {
						t.Errorf("request is not JSON: %v", err)
					}
				},
			})
			opts := tt.opts
			opts.BaseURL = srv.URL + "/"
			opts.APIKey = "sk-1"
			if _, err := llm.Collect(openai.New(&opts).Stream(ctx(t), req)); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{
				"model": "m",
				"messages": []any{
					map[string]any{"role": "system", "content": "Be brief.\n\nSpeak French."},
					map[string]any{"role": "user", "content": []any{
						map[string]any{"type": "text", "text": "What is this?"},
						map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw=="}},
					}},
				},
				"stream":         true,
				"stream_options": map[string]any{"include_usage": true},
				"tools": []any{map[string]any{"type": "function", "function": map[string]any{
					"name": "noop", "parameters": map[string]any{"type": "object", "properties": map[string]any{}},
				}}},
				"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "noop"}},
				"temperature": 0.25,
				"stop":        []any{"END"},
				tt.wantMax:    100.0,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
			if hdr.Get("Authorization") != "Bearer sk-1" || hdr.Get("X-Extra") != tt.opts.Headers["X-Extra"] {
				t.Errorf("headers = %v", hdr)
			}
			if hdr.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type = %q", hdr.Get("Content-Type"))
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	body := `{"id":"chatcmpl-9","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,
		"tool_calls":[{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},
		"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42}}`
	srv := llmtest.NewServer(t, llmtest.Reply{
		Header: http.Header{"Content-Type": {"application/json"}},
		Chunks: [][]byte{[]byte(body)},
		Check: func(t testing.TB, r *http.Request, b []byte) {
			if strings.Contains(string(b), `"stream"`) {
				t.Errorf("non-streaming request carries stream: %s", b)
			}
		},
	}, llmtest.Reply{
		// A server that ignores stream:true and answers whole.
		Header: http.Header{"Content-Type": {"application/json"}},
		Chunks: [][]byte{[]byte(body)},
	})
	p := openai.New(&openai.Options{BaseURL: srv.URL, Model: "m"})
	want := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_x", Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)},
		}},
		Usage:      llm.Usage{InputTokens: 30, OutputTokens: 12},
		StopReason: llm.StopToolUse, RawStopReason: "tool_calls",
	}
	got, err := llm.Generate(ctx(t), p, &llm.Request{Messages: []llm.Message{llm.UserText("weather?")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Generate mismatch (-want +got):\n%s", diff)
	}
	got, err = llm.Collect(p.Stream(ctx(t), &llm.Request{Messages: []llm.Message{llm.UserText("weather?")}}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stream from a whole answer mismatch (-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	list := []byte(`{"object":"list","data":[{"id":"qwen2.5","object":"model"},{"id":"llama3.2:latest","object":"model"}]}`)
	tests := []struct {
		name    string
		model   string
		reply   llmtest.Reply
		wantErr llm.ErrorKind
	}{
		{"model served", "qwen2.5", llmtest.Reply{Chunks: [][]byte{list}}, ""},
		{"ollama's implicit tag", "llama3.2", llmtest.Reply{Chunks: [][]byte{list}}, ""},
		{"model missing", "gpt-9", llmtest.Reply{Chunks: [][]byte{list}}, llm.KindNotFound},
		{"bad key", "qwen2.5", llmtest.Reply{Status: 401, Chunks: [][]byte{[]byte(`{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)}}, llm.KindAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.reply.Header = http.Header{"Content-Type": {"application/json"}}
			tt.reply.Check = func(t testing.TB, r *http.Request, _ []byte) {
				if r.Method != http.MethodGet || r.URL.Path != "/models" {
					t.Errorf("request %s %s, want GET /models", r.Method, r.URL.Path)
				}
			}
			srv := llmtest.NewServer(t, tt.reply)
			err := openai.New(&openai.Options{BaseURL: srv.URL, Model: tt.model}).Check(ctx(t))
			var e *llm.Error
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tt.wantErr != "" && (!errors.As(err, &e) || e.Kind != tt.wantErr):
				t.Errorf("Check error = %v, want kind %s", err, tt.wantErr)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		req  *llm.Request
	}{
		{"no model", &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}},
		{"image without MIME type", &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartImage, Data: []byte{1}}}}}}},
		{"unknown role", &llm.Request{Model: "m", Messages: []llm.Message{{Role: "robot"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			_, err := llm.Collect(openai.New(&openai.Options{BaseURL: srv.URL}).Stream(ctx(t), tt.req))
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.KindInvalidRequest {
				t.Errorf("error = %v, want an invalid_request *llm.Error", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent for a request that cannot be encoded", n)
			}
		})
	}
}
