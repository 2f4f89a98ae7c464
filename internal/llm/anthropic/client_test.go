package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func raw(events ...string) [][]byte {
	out := make([][]byte, len(events))
	for i, e := range events {
		var v struct{ Type string }
		_ = json.Unmarshal([]byte(e), &v)
		out[i] = []byte("event: " + v.Type + "\ndata: " + e + "\n\n")
	}
	return out
}

func TestRequestEncoding(t *testing.T) {
	temp := 0.5
	call := llm.ToolCall{ID: "toolu_1", Name: "look", Arguments: []byte(`not json`)}
	req := &llm.Request{
		Model:  "claude-x",
		System: "Be brief.",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("Speak French.")}},
			{Role: llm.RoleUser, Content: []llm.Part{
				llm.TextPart("Look:"), llm.ImagePart("image/png", []byte{1, 2, 3}),
				llm.ImageURLPart("data:image/jpeg;base64,/9j/"), llm.ImageURLPart("https://example.com/cat.png"), llm.TextPart(""),
			}},
			{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Looking.")}, ToolCalls: []llm.ToolCall{call}},
			llm.ToolResult(call, "a cat", false),
			llm.UserText("And now?"),
		},
		Tools:       []llm.ToolSpec{{Name: "look", Description: "Look"}},
		ToolChoice:  llm.ToolChoice{Mode: llm.ToolChoiceRequired},
		Temperature: &temp,
		MaxTokens:   77,
		Stop:        []string{"END"},
	}
	var got map[string]any
	var hdr http.Header
	srv := llmtest.NewServer(t, llmtest.Reply{
		Chunks: raw(`{"type":"message_start","message":{"usage":{"input_tokens":1}}}`, `{"type":"message_stop"}`),
		Check: func(t testing.TB, r *http.Request, body []byte) {
			hdr = r.Header
			if r.URL.Path != "/v1/messages" {
				t.Errorf("path %q, want /v1/messages", r.URL.Path)
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Errorf("request is not JSON: %v", err)
			}
		},
	})
	p := anthropic.New(&anthropic.Options{BaseURL: srv.URL + "/v1/", APIKey: "sk-ant", Headers: map[string]string{"Anthropic-Beta": "x"}})
	if _, err := llm.Collect(p.Stream(ctx(t), req)); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "claude-x", "max_tokens": 77.0, "system": "Be brief.\n\nSpeak French.", "stream": true,
		"temperature": 0.5, "stop_sequences": []any{"END"},
		"tool_choice": map[string]any{"type": "any"},
		"tools":       []any{map[string]any{"name": "look", "description": "Look", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}}},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "Look:"},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "AQID"}},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
				map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/cat.png"}},
			}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Looking."},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "look", "input": map[string]any{}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": "a cat"}}},
				map[string]any{"type": "text", "text": "And now?"},
			}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
	for k, v := range map[string]string{"X-Api-Key": "sk-ant", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json", "Anthropic-Beta": "x"} {
		if hdr.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, hdr.Get(k), v)
		}
	}
}

func TestStreamDetails(t *testing.T) {
	tests := []struct {
		name    string
		chunks  [][]byte
		retry   [][]byte // the second reply, when the first is retried
		want    *llm.Response
		wantErr func(error) bool
	}{
		{
			name: "thinking, cache usage, stop sequence",
			chunks: raw(
				`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":1}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done"}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":20}}`,
				`{"type":"message_stop"}`),
			want: &llm.Response{
				Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Done")}},
				Reasoning:  "Hmm.",
				Usage:      llm.Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 100, CacheWriteTokens: 5},
				StopReason: llm.StopSequence, RawStopReason: "stop_sequence",
			},
		},
		{
			name: "tool input only in content_block_start",
			chunks: raw(
				`{"type":"message_start","message":{"usage":{}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"f","input":{"a":1}}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`,
				`{"type":"message_stop"}`),
			want: &llm.Response{
				Message:    llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_9", Name: "f", Arguments: []byte(`{"a":1}`)}}},
				StopReason: llm.StopToolUse, RawStopReason: "tool_use",
			},
		},
		{
			name: "overloaded error mid-stream",
			chunks: raw(
				`{"type":"message_start","message":{"usage":{"input_tokens":3}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}`,
				`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			wantErr: func(err error) bool {
				var e *llm.Error
				return errors.As(err, &e) && e.Kind == llm.KindServer && e.IsRetryable() && e.Code == "overloaded_error"
			},
		},
		{
			name: "overloaded before any output is retried",
			chunks: raw(
				`{"type":"message_start","message":{"usage":{"input_tokens":3}}}`,
				`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			retry: raw(
				`{"type":"message_start","message":{"usage":{"input_tokens":3}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"ok"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`,
				`{"type":"message_stop"}`),
			want: &llm.Response{
				Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("ok")}},
				Usage:      llm.Usage{InputTokens: 3, OutputTokens: 1},
				StopReason: llm.StopEndTurn, RawStopReason: "end_turn",
			},
		},
		{
			name: "no message_stop",
			chunks: raw(
				`{"type":"message_start","message":{"usage":{"input_tokens":3}}}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`),
			wantErr: func(err error) bool { return errors.Is(err, llm.ErrIncomplete) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := []llmtest.Reply{{Chunks: tt.chunks}}
			opts := &anthropic.Options{BaseURL: "", Model: "m"}
			opts.MaxRetries = -1
			if tt.retry != nil {
				replies = append(replies, llmtest.Reply{Chunks: tt.retry})
				opts.MaxRetries, opts.InitialBackoff = 1, time.Millisecond
			}
			srv := llmtest.NewServer(t, replies...)
			opts.BaseURL = srv.URL
			p := anthropic.New(opts)
			got, err := llm.Collect(p.Stream(ctx(t), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
			if n := len(srv.Requests()); n != len(replies) {
				t.Errorf("server saw %d requests, want %d", n, len(replies))
			}
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("error = %v, not the one expected", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
		{"type":"text","text":"Checking."},
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}],
		"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":12}}`
	srv := llmtest.NewServer(t, llmtest.Reply{Header: http.Header{"Content-Type": {"application/json"}}, Chunks: [][]byte{[]byte(body)}})
	p := anthropic.New(&anthropic.Options{BaseURL: srv.URL, Model: "m"})
	got, err := llm.Generate(ctx(t), p, &llm.Request{Messages: []llm.Message{llm.UserText("weather?")}})
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Checking.")}, ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)},
		}},
		Usage:      llm.Usage{InputTokens: 30, OutputTokens: 12},
		StopReason: llm.StopToolUse, RawStopReason: "tool_use",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Generate mismatch (-want +got):\n%s", diff)
	}
	var sent map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &sent); err != nil || sent["stream"] != nil {
		t.Errorf("non-streaming request: %v, stream = %v", err, sent["stream"])
	}
}

func TestCheck(t *testing.T) {
	list := []byte(`{"data":[{"type":"model","id":"claude-sonnet-4-20250514"}],"has_more":false}`)
	tests := []struct {
		model   string
		wantErr bool
	}{
		{"claude-sonnet-4-20250514", false},
		{"claude-sonnet-4-0", false},
		{"claude-opus-9", true},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Header: http.Header{"Content-Type": {"application/json"}}, Chunks: [][]byte{list}})
			err := anthropic.New(&anthropic.Options{BaseURL: srv.URL, Model: tt.model}).Check(ctx(t))
			if (err != nil) != tt.wantErr {
				t.Errorf("Check = %v, want error %v", err, tt.wantErr)
			}
			if r := srv.Requests()[0]; r.Method != http.MethodGet || r.Path != "/v1/models" {
				t.Errorf("request %s %s, want GET /v1/models", r.Method, r.Path)
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
			_, err := llm.Collect(anthropic.New(&anthropic.Options{BaseURL: srv.URL}).Stream(ctx(t), tt.req))
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
