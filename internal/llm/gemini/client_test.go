package gemini_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/gemini"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func newClient(t *testing.T, srv *llmtest.Server) *gemini.Client {
	t.Helper()
	return gemini.New(&gemini.Options{
		BaseURL: srv.URL, APIKey: "k-123", Model: "gemini-2.5-flash",
		HTTPOptions: llm.HTTPOptions{MaxRetries: -1},
	})
}

func sseReply(events ...map[string]any) llmtest.Reply {
	var chunks [][]byte
	for _, e := range events {
		chunks = append(chunks, event(e))
	}
	return llmtest.Reply{Chunks: chunks}
}

func TestBaseURLWithVersion(t *testing.T) {
	srv := llmtest.NewServer(t, sseReply(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": "hi"}}, "STOP")}}))
	c := gemini.New(&gemini.Options{BaseURL: srv.URL + "/v1beta/", Model: "models/gemini-2.5-flash"})
	if _, err := llm.Collect(c.Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})); err != nil {
		t.Fatal(err)
	}
	if p := srv.Requests()[0].Path; p != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" {
		t.Errorf("path = %s", p)
	}
}

func TestStreamRequestLine(t *testing.T) {
	srv := llmtest.NewServer(t, sseReply(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": "hi"}}, "STOP")}}))
	c := newClient(t, srv)
	if _, err := llm.Collect(c.Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" {
		t.Errorf("request %s %s, want POST /v1beta/models/gemini-2.5-flash:streamGenerateContent", r.Method, r.Path)
	}
	if got := r.Header.Get("X-Goog-Api-Key"); got != "k-123" {
		t.Errorf("x-goog-api-key = %q, want k-123", got)
	}
}

// TestThoughtSignatureRoundTrip checks that a call's signature, carried in
// its id, goes back on the same functionCall part, and that a Gemini id is
// returned with the response.
func TestThoughtSignatureRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(t,
		sseReply(map[string]any{"candidates": []any{candidate([]any{
			map[string]any{"functionCall": map[string]any{"id": "fc-7", "name": "lookup", "args": map[string]any{"q": "x"}}, "thoughtSignature": "U0lH"},
			map[string]any{"functionCall": map[string]any{"name": "lookup", "args": map[string]any{"q": "y"}}},
		}, "STOP")}}),
		sseReply(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": "done"}}, "STOP")}}),
	)
	c := newClient(t, srv)
	req := &llm.Request{Messages: []llm.Message{llm.UserText("look up x and y")}, Tools: []llm.ToolSpec{{Name: "lookup"}}}
	resp, err := llm.Collect(c.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolUse || len(resp.Message.ToolCalls) != 2 {
		t.Fatalf("response = %+v, want two calls and tool_use", resp)
	}
	calls := resp.Message.ToolCalls
	if calls[0].ID == calls[1].ID {
		t.Errorf("ids repeat: %q", calls[0].ID)
	}
	req.Messages = append(req.Messages, resp.Message,
		llm.ToolResult(calls[0], "X", false), llm.ToolResult(calls[1], "Y", false))
	if _, err := llm.Collect(c.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"functionCall": map[string]any{"id": "fc-7", "name": "lookup", "args": map[string]any{"q": "x"}}, "thoughtSignature": "U0lH"},
		{"functionCall": map[string]any{"name": "lookup", "args": map[string]any{"q": "y"}}},
	}
	if diff := cmp.Diff(want, sent.Contents[1].Parts); diff != "" {
		t.Errorf("model parts mismatch (-want +got):\n%s", diff)
	}
	wantResults := []map[string]any{
		{"functionResponse": map[string]any{"id": "fc-7", "name": "lookup", "response": map[string]any{"output": "X"}}},
		{"functionResponse": map[string]any{"name": "lookup", "response": map[string]any{"output": "Y"}}},
	}
	if diff := cmp.Diff(wantResults, sent.Contents[2].Parts); diff != "" {
		t.Errorf("result parts mismatch (-want +got):\n%s", diff)
	}
}

func TestRequestEncoding(t *testing.T) {
	temp := 0.2
	tests := []struct {
		name  string
		model string
		req   llm.Request
		want  string // a JSON object whose fields the body must equal
	}{
		{
			"generation config", "gemini-2.5-flash",
			llm.Request{Messages: []llm.Message{llm.UserText("a")}, Temperature: &temp, MaxTokens: 50, Stop: []string{"END"}},
			`{"generationConfig":{"temperature":0.2,"maxOutputTokens":50,"stopSequences":["END"]}}`,
		},
		{
			"forced tool", "gemini-2.5-flash",
			llm.Request{Messages: []llm.Message{llm.UserText("a")}, Tools: []llm.ToolSpec{{Name: "f"}}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "f"}},
			`{"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},"tools":[{"functionDeclarations":[{"name":"f"}]}]}`,
		},
		{
			"no tools allowed", "gemini-2.5-flash",
			llm.Request{Messages: []llm.Message{llm.UserText("a")}, Tools: []llm.ToolSpec{{Name: "f"}}, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceNone}},
			`{"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}}`,
		},
		{
			"images", "gemini-2.5-flash",
			llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{
				llm.TextPart("what is this?"), llm.ImagePart("image/png", []byte{1, 2, 3}), llm.ImageURLPart("data:image/jpeg;base64,BAUG"),
			}}}},
			`{"contents":[{"role":"user","parts":[{"text":"what is this?"},{"inlineData":{"mimeType":"image/png","data":"AQID"}},{"inlineData":{"mimeType":"image/jpeg","data":"BAUG"}}]}]}`,
		},
		{
			// Gemini 2.5 reads a result's media as inlineData parts in the
			// same user turn as the functionResponse.
			"tool result image beside the response", "gemini-2.5-flash",
			llm.Request{Messages: toolImageHistory()},
			`{"contents":[{"role":"user","parts":[{"text":"shoot"}]},{"role":"model","parts":[{"functionCall":{"name":"shot","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"shot","response":{"output":"here"}}},{"inlineData":{"mimeType":"image/png","data":"AQID"}}]}]}`,
		},
		{
			// Gemini 3 takes multimodal function responses: media in
			// functionResponse.parts as inlineData (FunctionResponsePart).
			"tool result image inside the response on gemini 3", "gemini-3-pro-preview",
			llm.Request{Messages: toolImageHistory()},
			`{"contents":[{"role":"user","parts":[{"text":"shoot"}]},{"role":"model","parts":[{"functionCall":{"name":"shot","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},{"role":"user","parts":[{"functionResponse":{"name":"shot","response":{"output":"here"},"parts":[{"inlineData":{"mimeType":"image/png","data":"AQID"}}]}}]}]}`,
		},
		{
			"system messages joined", "gemini-2.5-flash",
			llm.Request{System: "A.", Messages: []llm.Message{{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("B.")}}, llm.UserText("a")}},
			`{"systemInstruction":{"parts":[{"text":"A.\n\nB."}]},"contents":[{"role":"user","parts":[{"text":"a"}]}]}`,
		},
		{
			"gemini 3 history without signatures", "gemini-3-pro-preview",
			llm.Request{Messages: []llm.Message{
				llm.UserText("a"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_x", Name: "f", Arguments: []byte(`{}`)}, {ID: "call_y", Name: "f", Arguments: []byte(`not json`)}}},
			}},
			`{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"name":"f","args":{}}}]}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, sseReply(map[string]any{"candidates": []any{candidate([]any{map[string]any{"text": "ok"}}, "STOP")}}))
			c := gemini.New(&gemini.Options{BaseURL: srv.URL, Model: tc.model})
			if _, err := llm.Collect(c.Stream(t.Context(), &tc.req)); err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			if err := json.Unmarshal(srv.Requests()[0].Body, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				if diff := cmp.Diff(w, got[k]); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

func TestImageURLRefused(t *testing.T) {
	c := gemini.New(&gemini.Options{BaseURL: "http://127.0.0.1:1", Model: "m"})
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{llm.ImageURLPart("https://example.com/a.png")}}}}
	_, err := llm.Collect(c.Stream(t.Context(), req))
	if err == nil || !strings.Contains(err.Error(), "Gemini takes images as bytes") {
		t.Errorf("error = %v, want a refusal of the image URL", err)
	}
}

func TestStreamEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		events  []map[string]any
		want    []llm.Event
		wantErr llm.ErrorKind
	}{
		{"thoughts are reasoning", []map[string]any{
			{
				"candidates":    []any{candidate([]any{map[string]any{"text": "hmm", "thought": true}, map[string]any{"text": "ok"}}, "STOP")},
				"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 2, "thoughtsTokenCount": 5, "cachedContentTokenCount": 4},
			},
		}, []llm.Event{
			{Type: llm.EventReasoningDelta, Text: "hmm"},
			{Type: llm.EventTextDelta, Text: "ok"},
			{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 4, ReasoningTokens: 5}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn, RawStopReason: "STOP"},
		}, ""},
		{
			"blocked prompt",
			[]map[string]any{{"promptFeedback": map[string]any{"blockReason": "SAFETY"}}},
			[]llm.Event{{Type: llm.EventStop, StopReason: llm.StopContentFilter, RawStopReason: "SAFETY"}},
			"",
		},
		{"error event", []map[string]any{{"error": map[string]any{"code": 500, "message": "Internal error", "status": "INTERNAL"}}}, nil, llm.KindServer},
		{
			"no finish reason",
			[]map[string]any{{"candidates": []any{candidate([]any{map[string]any{"text": "cut"}}, "")}}},
			[]llm.Event{{Type: llm.EventTextDelta, Text: "cut"}},
			llm.KindConnection,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, sseReply(tc.events...))
			var evs []llm.Event
			var gotErr error
			for ev, err := range newClient(t, srv).Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("a")}}) {
				if err != nil {
					gotErr = err
					break
				}
				evs = append(evs, ev)
			}
			if diff := cmp.Diff(tc.want, evs); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			var e *llm.Error
			if tc.wantErr != "" && (!errors.As(gotErr, &e) || e.Kind != tc.wantErr) {
				t.Errorf("error = %v, want kind %s", gotErr, tc.wantErr)
			}
			if tc.wantErr == "" && gotErr != nil {
				t.Errorf("unexpected error %v", gotErr)
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	body := `{"candidates":[{"content":{"parts":[{"text":"4"}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}`
	srv := llmtest.NewServer(t, llmtest.Reply{Header: http.Header{"Content-Type": {"application/json"}}, Chunks: [][]byte{[]byte(body)}})
	resp, err := newClient(t, srv).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("2+2")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "4" || resp.Usage.InputTokens != 3 || resp.StopReason != llm.StopEndTurn {
		t.Errorf("response = %+v", resp)
	}
	if p := srv.Requests()[0].Path; p != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("path = %s", p)
	}
}

func TestModelsAndCheck(t *testing.T) {
	page1 := `{"models":[{"name":"models/gemini-2.5-pro"}],"nextPageToken":"p2"}`
	page2 := `{"models":[{"name":"models/gemini-2.5-flash"}]}`
	json := http.Header{"Content-Type": {"application/json"}}
	srv := llmtest.NewServer(t,
		llmtest.Reply{Header: json, Chunks: [][]byte{[]byte(page1)}},
		llmtest.Reply{Header: json, Chunks: [][]byte{[]byte(page2)}},
		llmtest.Reply{Header: json, Chunks: [][]byte{[]byte(page2)}},
	)
	c := newClient(t, srv)
	names, err := c.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gemini-2.5-pro", "gemini-2.5-flash"}, names); diff != "" {
		t.Errorf("models mismatch (-want +got):\n%s", diff)
	}
	if err := c.Check(t.Context()); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// toolImageHistory is a conversation whose last tool result holds an image.
func toolImageHistory() []llm.Message {
	return []llm.Message{
		llm.UserText("shoot"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "shot", Arguments: []byte(`{}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "shot", Content: []llm.Part{llm.TextPart("here"), llm.ImagePart("image/png", []byte{1, 2, 3})}},
	}
}
