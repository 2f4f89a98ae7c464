package web_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// visionModel is a fake OpenAI Chat Completions server for a vision model.
// It answers only from the request it is shown:
//   - a last user message asking for "the tiny image" gets a call of the
//     offered tool whose name ends in "get-tiny-image";
//   - a last message carrying image_url parts (the user's attachment, or
//     the user message that follows tool results) gets a text naming the
//     images it received: their MIME type and decoded size;
//   - anything else gets "I see no image".
//
// bodies keeps every request body, for the test to check the wire shape.
type visionModel struct {
	mu     sync.Mutex
	bodies [][]byte // guarded by mu
}

func (v *visionModel) requests() [][]byte {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([][]byte(nil), v.bodies...)
}

type oaPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Stream   bool        `json:"stream"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// parts returns a message's content parts; a string is one text part.
func (m oaMessage) parts() []oaPart {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []oaPart{{Type: "text", Text: s}}
	}
	var ps []oaPart
	_ = json.Unmarshal(m.Content, &ps)
	return ps
}

func (v *visionModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v.mu.Lock()
	v.bodies = append(v.bodies, body)
	v.mu.Unlock()
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil || !req.Stream || len(req.Messages) == 0 {
		http.Error(w, "want a streamed chat completion request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		choice := map[string]any{"index": 0, "delta": delta, "finish_reason": finish}
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{choice}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	last := req.Messages[len(req.Messages)-1]
	var images []string
	for _, p := range last.parts() {
		if p.Type == "image_url" && p.ImageURL != nil {
			images = append(images, describeImage(p.ImageURL.URL))
		}
	}
	tool := ""
	for _, t := range req.Tools {
		if strings.HasSuffix(t.Function.Name, "get-tiny-image") {
			tool = t.Function.Name
		}
	}
	system := ""
	if first := req.Messages[0]; first.Role == "system" {
		system = string(first.Content)
	}
	switch {
	case strings.Contains(system, "compress a conversation"):
		// The summariser: it keeps the start of the first user line of
		// the transcript it was given.
		line := ""
		for _, l := range strings.Split(last.parts()[0].Text, "\n") {
			if rest, ok := strings.CutPrefix(l, "user: "); ok {
				line = rest[:min(len(rest), 26)]
				break
			}
		}
		send(map[string]any{"role": "assistant", "content": "Earlier the user wrote: " + line}, "stop")
	case last.parts()[0].Text == "what word?":
		word := "no word I can see"
		if strings.Contains(string(body), "pelican") {
			word = "pelican"
		}
		send(map[string]any{"role": "assistant", "content": "The word was " + word + "."}, "stop")
	case len(images) > 0:
		send(map[string]any{"role": "assistant", "content": "I see " + strings.Join(images, " and ") + "."}, "stop")
	case last.Role == "user" && strings.Contains(string(last.Content), "tiny image") && tool != "":
		call := map[string]any{"index": 0, "id": "call_img", "type": "function", "function": map[string]any{"name": tool, "arguments": "{}"}}
		send(map[string]any{"role": "assistant", "tool_calls": []any{call}}, "tool_calls")
	default:
		send(map[string]any{"role": "assistant", "content": "I see no image."}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// describeImage names a data: URL image by its type and decoded size.
func describeImage(u string) string {
	meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return "an image I cannot read"
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "an image I cannot read"
	}
	return fmt.Sprintf("a %s of %d bytes", strings.TrimSuffix(meta, ";base64"), len(raw))
}

var _ http.Handler = (*visionModel)(nil)

// mustJSON decodes b, failing the test on malformed JSON.
func mustJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}
