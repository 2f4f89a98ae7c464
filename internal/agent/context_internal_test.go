package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestContextFor(t *testing.T) {
	call := func(id string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "t", Arguments: []byte(`{}`)} }
	asst := func(agent, text string, calls ...llm.ToolCall) store.Message {
		m := llm.AssistantText(text)
		if text == "" {
			m.Content = nil
		}
		m.ToolCalls = calls
		return store.Message{Message: m, Agent: agent}
	}
	result := func(agent, id string) store.Message {
		return store.Message{Message: llm.ToolResult(call(id), "r"+id, false), Agent: agent}
	}
	user := func(s string) store.Message { return store.Message{Message: llm.UserText(s)} }
	hist := []store.Message{
		user("hi"),
		asst("", "", call("a1")), result("", "a1"),
		asst("", "assistant says"),
		user("@bob go"),
		asst("bob", "", call("b1")), result("bob", "b1"),
		asst("bob", "bob says"),
		asst("", "", call("a2")), // interrupted: no result was stored
		user("again"),
	}
	render := func(ms []llm.Message) []string {
		var out []string
		for _, m := range ms {
			s := string(m.Role) + ":" + m.Text()
			for _, c := range m.ToolCalls {
				s += " call " + c.ID
			}
			if m.ToolCallID != "" {
				s += " for " + m.ToolCallID
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		agent string
		want  []string
	}{
		{"", []string{
			"user:hi", "assistant: call a1", "tool:ra1 for a1", "assistant:assistant says", "user:@bob go",
			"assistant:bob says", "assistant: call a2",
			"tool:no result was recorded for this call (it was interrupted) for a2", "user:again",
		}},
		{"bob", []string{
			"user:hi", "assistant:assistant says", "user:@bob go", "assistant: call b1", "tool:rb1 for b1",
			"assistant:bob says", "user:again",
		}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, render(contextFor(tc.agent, hist))); diff != "" {
			t.Errorf("contextFor(%q) mismatch (-want +got):\n%s", tc.agent, diff)
		}
	}
}

func TestValidJSON(t *testing.T) {
	for in, want := range map[string]string{"": "{}", `{"a":1}`: `{"a":1}`, `{"a":`: `"{\"a\":"`, "\xff": `"\ufffd"`} {
		if got := string(validJSON([]byte(in))); got != want {
			t.Errorf("validJSON(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFitWindow(t *testing.T) {
	long := func(role llm.Role, n int) llm.Message {
		return llm.Message{Role: role, Content: []llm.Part{llm.TextPart(string(make([]byte, n)))}}
	}
	msgs := []llm.Message{
		long(llm.RoleUser, 30), long(llm.RoleAssistant, 30),
		long(llm.RoleUser, 30),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "t", Arguments: []byte("{}")}}},
		long(llm.RoleTool, 30), long(llm.RoleAssistant, 30),
		long(llm.RoleUser, 30),
	}
	tests := []struct {
		window, wantFrom int
	}{
		{0, 0},    // no window: everything
		{1000, 0}, // fits
		{60, 6},   // budget 90 chars: only the last user message
		{120, 2},  // budget 180: from the second user message, call and result together
		{1, 6},    // too small even for the last message: keep it anyway
	}
	for _, tc := range tests {
		got := fitWindow(msgs, tc.window)
		if len(got) != len(msgs)-tc.wantFrom {
			t.Errorf("fitWindow(window %d) kept %d messages, want the last %d", tc.window, len(got), len(msgs)-tc.wantFrom)
		}
	}
}

// TestFitWindowKeepsSystemMessages checks that trimming an old stateless
// conversation keeps the caller's system instructions.
func TestFitWindowKeepsSystemMessages(t *testing.T) {
	long := func(role llm.Role, n int) llm.Message {
		return llm.Message{Role: role, Content: []llm.Part{llm.TextPart(strings.Repeat("x", n))}}
	}
	sys := llm.Message{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("be brief")}}
	msgs := []llm.Message{sys, long(llm.RoleUser, 300), long(llm.RoleAssistant, 300), long(llm.RoleUser, 30)}
	var got []string
	for _, m := range fitWindow(msgs, 60) {
		got = append(got, string(m.Role))
	}
	if diff := cmp.Diff([]string{"system", "user"}, got); diff != "" {
		t.Errorf("kept roles mismatch (-want +got):\n%s", diff)
	}
}
