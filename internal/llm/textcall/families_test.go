package textcall

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// TestSchemaDecidesTextValues checks that a value written as text (Qwen3
// XML, GLM) follows the tool's schema: a string parameter stays a string
// even when it reads as a number, and a number parameter becomes one.
func TestSchemaDecidesTextValues(t *testing.T) {
	cat := NewCatalog([]llm.ToolSpec{{
		Name:       "geo__lookup",
		Parameters: []byte(`{"type":"object","properties":{"zip":{"type":"string"},"radius":{"type":["number","null"]},"raw":{}}}`),
	}})
	reply := "<tool_call>\n<function=lookup>\n<parameter=zip>\n75001\n</parameter>\n<parameter=radius>\n2.5\n</parameter>\n<parameter=raw>\ntrue\n</parameter>\n</function>\n</tool_call>"
	want := []got{call("geo__lookup", `{"zip":"75001","radius":2.5,"raw":true}`)}
	if diff := cmp.Diff(want, view(cat.Parser().Parse(reply))); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestReasoningIsShownNotRun checks the parts a reply with reasoning gives:
// the reasoning as reasoning, its decoy call as reasoning text, and the
// call outside it as a call.
func TestReasoningIsShownNotRun(t *testing.T) {
	p := NewParser([]string{"search"})
	reply := `<think>try <tool_code>{"tool_name":"search","arguments":{"q":"no"}}</tool_code></think>Here.<tool_code>{"tool_name":"search","arguments":{"q":"yes"}}</tool_code>`
	want := []Part{
		{Text: `try <tool_code>{"tool_name":"search","arguments":{"q":"no"}}</tool_code>`, Reasoning: true},
		{Text: "Here."},
	}
	parts := p.Parse(reply)
	if len(parts) != 3 || parts[2].Call == nil || string(parts[2].Call.Arguments) != `{"q":"yes"}` {
		t.Fatalf("parts = %+v, want reasoning, text, call", parts)
	}
	if diff := cmp.Diff(want, parts[:2]); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestTextModeEmitsReasoning(t *testing.T) {
	fake := llmtestFake("<thi", "nk>weather? <tool_code>{\"tool_name\":\"get_time\",\"arguments\":{}}</tool_code></th", "ink>ok<tool_code>{\"tool_name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}</tool_code>")
	w := Wrap(fake, &Options{Mode: ModeText, NewID: counterIDs()})
	want := []llm.Event{
		{Type: llm.EventReasoningDelta, Text: `weather? <tool_code>{"tool_name":"get_time","arguments":{}}</tool_code>`},
		{Type: llm.EventTextDelta, Text: "ok"},
		{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	if diff := cmp.Diff(want, collect(t, w, weatherRequest())); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

func llmtestFake(chunks ...string) *llmtest.FakeProvider {
	return llmtest.NewFakeProvider(textTurn(chunks...))
}
