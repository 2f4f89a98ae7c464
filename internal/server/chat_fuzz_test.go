package server

import (
	"encoding/json"
	"testing"
)

// FuzzChatRequest feeds arbitrary bodies to the chat request decoder and
// the message conversion: they must return an error or messages, never
// panic.
func FuzzChatRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`,
		`{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":""}}]},{"role":"tool","tool_call_id":"1","content":"r"}]}`,
		`{"model":"m","messages":[{"role":"developer","content":[{"type":"audio"}]}]}`,
		`{"messages":[{"role":"tool"}]}`,
		`{"messages":[{"content":7}]}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var cr chatRequest
		if json.Unmarshal(body, &cr) != nil {
			return
		}
		msgs, err := toLLM(cr.Messages)
		if err == nil && len(msgs) != len(cr.Messages) {
			t.Fatalf("%d messages became %d", len(cr.Messages), len(msgs))
		}
	})
}
