package agent

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
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

// FuzzFindArguments: any arguments give a result, never a panic, and a
// result lists only tools the run may call.
func FuzzFindArguments(f *testing.F) {
	for _, s := range []string{`{"query":"weather"}`, `{"query":"","limit":3}`, `{"query":"x","limit":"9"}`, `null`, `"q"`, `{"query":["a"]}`, `{"query":"- a: b\n- c: d"}`} {
		f.Add(s)
	}
	r := New(func(string) (Model, error) { return Model{}, nil }, tools.NewRegistry(nil), gate.New(nil), nil)
	docs := []rank.Doc{{Name: "weather", Description: "the weather forecast"}, {Name: "hidden", Description: "the weather, hidden"}}
	d := &deferral{index: rank.New(docs, nil), allowed: map[string]bool{"weather": true}}
	f.Fuzz(func(t *testing.T, args string) {
		res := d.find(t.Context(), r, json.RawMessage(args))
		if res == nil || len(res.Content) == 0 {
			t.Fatal("no result")
		}
		for _, name := range foundNames(res.Content[0].Text) {
			if !d.allowed[name] {
				t.Fatalf("listed %q, which the run may not call", name)
			}
		}
	})
}

// FuzzRouterInput: any conversation gives a bounded router input.
func FuzzRouterInput(f *testing.F) {
	f.Add("read mcp.json", "It failed", "read_file", `{"path":"x"}`, "/a/b/mcp.json")
	f.Fuzz(func(t *testing.T, first, answer, tool, args, next string) {
		msgs := []llm.Message{
			llm.UserText(first),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: tool, Arguments: json.RawMessage(args)}}},
			{Role: llm.RoleTool, ToolCallID: "1", IsError: true, Content: []llm.Part{llm.TextPart(answer)}},
			{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(answer)}},
			llm.UserText(next),
		}
		if got := routerInput(msgs); len(got) > 6000 {
			t.Fatalf("router input of %d bytes", len(got))
		}
	})
}

func TestParamSummary(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"object","properties":{"to":{"type":"string"},"cc":{"type":["string","null"]},"n":{}},"required":["to"]}`: "cc, n, to string (required)",
		`{"type":"object"}`: "",
		`not json`:          "",
		``:                  "",
	} {
		if got := paramSummary(json.RawMessage(in)); got != want {
			t.Errorf("paramSummary(%s) = %q, want %q", in, got, want)
		}
	}
}
