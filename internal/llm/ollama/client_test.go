package ollama_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"", "http://127.0.0.1:11434", ""},
		{"   ", "http://127.0.0.1:11434", ""},
		{"example.com", "http://example.com:11434", ""},
		{"example.com:8080", "http://example.com:8080", ""},
		{":9000", "http://127.0.0.1:9000", ""},
		{"0.0.0.0", "http://0.0.0.0:11434", ""},
		{"[::1]", "http://[::1]:11434", ""},
		{"[::1]:5000", "http://[::1]:5000", ""},
		{"http://gpu-box", "http://gpu-box:80", ""},
		{"https://ollama.example.com", "https://ollama.example.com:443", ""},
		{"https://proxy.example.com:8443/ollama/", "https://proxy.example.com:8443/ollama", ""},
		{"ftp://x", "", "scheme must be http or https"},
		{"host:99999", "", "invalid port"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ollama.ParseHost(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseHost(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func newClient(t *testing.T, srv *llmtest.Server, opts ollama.Options) *ollama.Client {
	t.Helper()
	opts.Host = srv.URL
	if opts.Model == "" {
		opts.Model = "llama3.2"
	}
	opts.MaxRetries = -1
	c, err := ollama.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

func jsonReply(body string) llmtest.Reply {
	return llmtest.Reply{Header: jsonHeader, Chunks: [][]byte{[]byte(body)}}
}

func ndjson(lines ...string) llmtest.Reply {
	var chunks [][]byte
	for _, l := range lines {
		chunks = append(chunks, []byte(l+"\n"))
	}
	return llmtest.Reply{Header: http.Header{"Content-Type": {"application/x-ndjson"}}, Chunks: chunks}
}

const doneLine = `{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`

func TestRequestEncoding(t *testing.T) {
	temp := 0.5
	req := &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{
			llm.TextPart("what is "), llm.TextPart("this?"), llm.ImagePart("image/png", []byte{1, 2, 3}), llm.ImageURLPart("data:image/png;base64,BAUG"),
		}}},
		Tools:       []llm.ToolSpec{{Name: "f"}},
		ToolChoice:  llm.ToolChoice{Mode: llm.ToolChoiceNone},
		Temperature: &temp, MaxTokens: 64, Stop: []string{"###"},
	}
	srv := llmtest.NewServer(t, ndjson(doneLine))
	c := newClient(t, srv, ollama.Options{NumCtx: 8192, KeepAlive: "10m"})
	if _, err := llm.Collect(c.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodPost || r.Path != "/api/chat" {
		t.Errorf("request %s %s, want POST /api/chat", r.Method, r.Path)
	}
	var got map[string]any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "llama3.2", "stream": true, "keep_alive": "10m",
		"options":  map[string]any{"temperature": 0.5, "num_predict": float64(64), "num_ctx": float64(8192), "stop": []any{"###"}},
		"messages": []any{map[string]any{"role": "user", "content": "what is this?", "images": []any{"AQID", "BAUG"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body mismatch (-want +got):\n%s", diff)
	}
}

func TestStreamEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		want    []llm.Event
		wantErr llm.ErrorKind
		cut     bool // the last line lacks its newline
	}{
		{"thinking and string arguments", []string{
			`{"message":{"role":"assistant","content":"","thinking":"let me see"},"done":false}`,
			`{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_abc","function":{"name":"f","arguments":"{\"a\":1}"}}]},"done":false}`,
			`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":9,"eval_count":3}`,
		}, []llm.Event{
			{Type: llm.EventReasoningDelta, Text: "let me see"},
			{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_abc", Name: "f", Arguments: []byte(`{"a":1}`)}},
			{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 9, OutputTokens: 3}},
			{Type: llm.EventStop, StopReason: llm.StopToolUse, RawStopReason: "stop"},
		}, "", false},
		{
			"error line",
			[]string{`{"message":{"role":"assistant","content":"a"},"done":false}`, `{"error":"llama runner process has terminated: signal: killed"}`},
			[]llm.Event{{Type: llm.EventTextDelta, Text: "a"}},
			llm.KindServer, false,
		},
		{
			"no done line",
			[]string{`{"message":{"role":"assistant","content":"a"},"done":false}`},
			[]llm.Event{{Type: llm.EventTextDelta, Text: "a"}},
			llm.KindConnection, false,
		},
		{
			"cut mid-line",
			[]string{`{"message":{"role":"assistant","content":"a"},"done":false}`, `{"message":{"role":"assis`},
			[]llm.Event{{Type: llm.EventTextDelta, Text: "a"}},
			llm.KindConnection, true,
		},
		{
			"load only",
			[]string{`{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"load"}`},
			[]llm.Event{{Type: llm.EventStop, StopReason: llm.StopOther, RawStopReason: "load"}},
			"", false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := ndjson(tc.lines...)
			if tc.cut {
				last := rep.Chunks[len(rep.Chunks)-1]
				rep.Chunks[len(rep.Chunks)-1] = last[:len(last)-1]
			}
			srv := llmtest.NewServer(t, rep)
			var evs []llm.Event
			var gotErr error
			for ev, err := range newClient(t, srv, ollama.Options{}).Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("a")}}) {
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
	srv := llmtest.NewServer(t, jsonReply(`{"model":"llama3.2","message":{"role":"assistant","content":"4"},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":1}`))
	resp, err := newClient(t, srv, ollama.Options{}).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("2+2")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "4" || resp.Usage.OutputTokens != 1 {
		t.Errorf("response = %+v", resp)
	}
	var body struct {
		Stream *bool `json:"stream"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil || body.Stream == nil || *body.Stream {
		t.Errorf("Generate must send stream:false explicitly; body %s", srv.Requests()[0].Body)
	}
}

func TestSupportsTools(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  bool
		err   bool
	}{
		{"capabilities with tools", jsonReply(`{"capabilities":["completion","tools"],"template":""}`), true, false},
		{"capabilities without tools", jsonReply(`{"capabilities":["completion","vision"],"template":"{{ .Tools }}"}`), false, false},
		{"old server, template with tools", jsonReply(`{"template":"{{- if .Tools }}tools{{ end }}"}`), true, false},
		{"old server, plain template", jsonReply(`{"template":"{{ .Prompt }}"}`), false, false},
		{"model missing", llmtest.Reply{Status: 404, Header: jsonHeader, Chunks: [][]byte{[]byte(`{"error":"model 'nope' not found"}`)}}, false, true},
		{"no capabilities and no template", jsonReply(`{"modelfile":"FROM x","details":{"format":"gguf"}}`), false, true},
		{"not model details", jsonReply(`{"models":[]}`), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.reply)
			got, err := newClient(t, srv, ollama.Options{}).SupportsTools(t.Context(), "qwen3")
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("SupportsTools = %v, %v; want %v, error %v", got, err, tc.want, tc.err)
			}
			r := srv.Requests()[0]
			if r.Path != "/api/show" || string(r.Body) != `{"model":"qwen3"}` {
				t.Errorf("request %s %s", r.Path, r.Body)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tags := `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"},{"name":"qwen3:8b"}]}`
	tests := []struct {
		model string
		ok    bool
	}{{"llama3.2", true}, {"qwen3:8b", true}, {"mistral", false}}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			srv := llmtest.NewServer(t, jsonReply(tags))
			err := newClient(t, srv, ollama.Options{Model: tc.model}).Check(t.Context())
			if (err == nil) != tc.ok {
				t.Errorf("Check(%s) = %v, want ok %v", tc.model, err, tc.ok)
			}
			if r := srv.Requests()[0]; r.Method != http.MethodGet || r.Path != "/api/tags" {
				t.Errorf("request %s %s, want GET /api/tags", r.Method, r.Path)
			}
		})
	}
}

// TestTextProtocolOverOllama runs the text tool protocol end to end: the
// wrapper asks /api/show, finds no tool support, sends the manifest instead
// of tools and turns the <tool_code> block the model streams into a call.
func TestTextProtocolOverOllama(t *testing.T) {
	srv := llmtest.NewServer(t,
		jsonReply(`{"capabilities":["completion"]}`),
		ndjson(
			`{"message":{"role":"assistant","content":"Checking. <tool_"},"done":false}`,
			`{"message":{"role":"assistant","content":"code>{\"tool_name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_code>"},"done":false}`,
			doneLine,
		),
	)
	w := textcall.Wrap(newClient(t, srv, ollama.Options{}), nil)
	req := &llm.Request{
		Model: "gemma2:2b", Messages: []llm.Message{llm.UserText("Weather in Oslo?")},
		Tools: []llm.ToolSpec{{Name: "get_weather", Description: "Weather for a city"}},
	}
	resp, err := llm.Collect(w.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Checking. " || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "get_weather" || resp.StopReason != llm.StopToolUse {
		t.Errorf("response = %+v", resp)
	}
	var sent struct {
		Tools    []any `json:"tools"`
		Messages []struct {
			Role, Content string
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Tools) != 0 || sent.Messages[0].Role != "system" || !strings.Contains(sent.Messages[0].Content, "<tool_code>") {
		t.Errorf("text-mode request carries tools or lacks the manifest: %s", srv.Requests()[1].Body)
	}
}
