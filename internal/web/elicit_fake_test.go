package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// elicitModel is a fake OpenAI Chat Completions server. It answers only
// from the request it is shown:
//   - a last user message "fill the form" gets a call of the offered tool
//     whose name ends in "trigger-elicitation-request";
//   - a last user message "open the page" gets a call of the tool ending
//     in "trigger-url-elicitation" for https://login.example.com;
//   - a tool result gets "The server said: " and the result's text;
//   - anything else gets "Nothing to do.".
//
// bodies keeps every request body, for the test to read what it was sent.
type elicitModel struct {
	mu     sync.Mutex
	bodies [][]byte // guarded by mu
}

func (m *elicitModel) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

func (m *elicitModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil || !req.Stream || len(req.Messages) == 0 {
		http.Error(w, "want a streamed chat completion request", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		choice := map[string]any{"index": 0, "delta": delta, "finish_reason": finish}
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{choice}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	offered := func(suffix string) string {
		for _, t := range req.Tools {
			if strings.HasSuffix(t.Function.Name, suffix) {
				return t.Function.Name
			}
		}
		return ""
	}
	call := func(name, args string) {
		c := map[string]any{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}
		send(map[string]any{"role": "assistant", "tool_calls": []any{c}}, "tool_calls")
	}
	last := req.Messages[len(req.Messages)-1]
	text := last.parts()[0].Text
	switch {
	case last.Role == "tool":
		send(map[string]any{"role": "assistant", "content": "The server said: " + text}, "stop")
	case last.Role == "user" && text == "fill the form" && offered("trigger-elicitation-request") != "":
		call(offered("trigger-elicitation-request"), "{}")
	case last.Role == "user" && text == "open the page" && offered("trigger-url-elicitation") != "":
		call(offered("trigger-url-elicitation"), `{"url":"https://login.example.com/authorize?state=1","message":"Sign in to continue."}`)
	default:
		send(map[string]any{"role": "assistant", "content": "Nothing to do."}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

var _ http.Handler = (*elicitModel)(nil)
