package agent

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

func TestParseYesNo(t *testing.T) {
	tests := []struct {
		in      string
		yes, ok bool
	}{
		{"yes", true, true},
		{"Yes.", true, true},
		{"**NO**", false, true},
		{"Answer: no", false, true},
		{"no, it does not", false, true},
		{"Y", true, true},
		{"It doesn't need tools.", false, true},
		{"  yes  \n", true, true},
		{"maybe", false, false},
		{"", false, false},
		{"こんにちは", false, false},
	}
	for _, tc := range tests {
		yes, ok := parseYesNo(tc.in)
		if yes != tc.yes || ok != tc.ok {
			t.Errorf("parseYesNo(%q) = %v, %v; want %v, %v", tc.in, yes, ok, tc.yes, tc.ok)
		}
	}
}

// TestRouterInputBounded checks that a long request, answer and many
// large calls stay within a fixed size, and that only the last turn shows.
func TestRouterInputBounded(t *testing.T) {
	big := strings.Repeat("é", 10000)
	msgs := []llm.Message{
		llm.UserText("an old request that uses old_tool"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "o", Name: "old_tool", Arguments: []byte(`{}`)}}},
		llm.UserText("next"),
	}
	var calls []llm.ToolCall
	for i := range 20 {
		calls = append(calls, llm.ToolCall{ID: strconv.Itoa(i), Name: "t" + strconv.Itoa(i), Arguments: []byte(`"` + big + `"`)})
	}
	msgs = append(msgs,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: calls},
		llm.Message{Role: llm.RoleTool, ToolCallID: "19", IsError: true, Content: []llm.Part{llm.TextPart(big)}},
		llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(big)}},
		llm.UserText(big),
	)
	got := routerInput(msgs)
	if len(got) > 5000 {
		t.Errorf("router input is %d bytes", len(got))
	}
	if !utf8.ValidString(got) {
		t.Error("router input cut a rune")
	}
	if strings.Contains(got, "old_tool") || !strings.Contains(got, "t19") || strings.Contains(got, "t14 ") || !strings.Contains(got, "(failed)") {
		t.Errorf("router input shows the wrong calls:\n%s", got)
	}
	if plain := routerInput([]llm.Message{llm.UserText("hi")}); plain != "Request: hi\n\nDoes this request need tools? Answer yes or no." {
		t.Errorf("first message input = %q", plain)
	}
}
