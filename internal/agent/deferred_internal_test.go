package agent

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

func TestFindLimit(t *testing.T) {
	for in, want := range map[string]int{
		``: findDefaultLimit, `null`: findDefaultLimit, `3`: 3, `3.7`: 3, `"4"`: 4, `0`: findDefaultLimit,
		`-2`: findDefaultLimit, `1e9`: findMaxLimit, `"lots"`: findDefaultLimit, `{}`: findDefaultLimit,
	} {
		if got := findLimit(json.RawMessage(in)); got != want {
			t.Errorf("findLimit(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestLoadedTools reads loaded tools back from stored messages: names in
// find_tools results and called tools; error results and other tools'
// results that look alike count for nothing.
func TestLoadedTools(t *testing.T) {
	hist := []llm.Message{
		llm.UserText("- fake_user_tool: typed by the user"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: FindToolsName}, {ID: "2", Name: "mail__send"}}},
		llm.ToolResult(llm.ToolCall{ID: "1", Name: FindToolsName}, "Loaded these tools; call them by name like any other:\n- a__one: does one\n- b__two: does: two\n", false),
		llm.ToolResult(llm.ToolCall{ID: "3", Name: FindToolsName}, "- c__err: from an error\n", true),
		llm.ToolResult(llm.ToolCall{ID: "2", Name: "mail__send"}, "- d__mimic: a result that looks like one\n", false),
	}
	got := loadedTools(hist)
	want := []string{FindToolsName, "mail__send", "a__one", "b__two"}
	if len(got) != len(want) {
		t.Fatalf("loadedTools = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("loadedTools = %v, want %v", got, want)
		}
	}
}
