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
	}}, nil)
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

// TestAmbiguousCallAskedOnce checks that a reply ending with a call given
// "for example" is not run, that the model is asked once, and that its
// answer decides: a call in the requested format runs, "no call" runs
// nothing.
func TestAmbiguousCallAskedOnce(t *testing.T) {
	first := `For example: <tool_code>{"tool_name": "get_weather", "arguments": {"city": "Paris"}}</tool_code>`
	tests := []struct {
		name   string
		answer string
		want   []llm.Event
	}{
		{"meant", `<tool_code>{"tool_name": "get_weather", "arguments": {"city": "Paris"}}</tool_code>`, []llm.Event{
			{Type: llm.EventTextDelta, Text: first[:13]},
			{Type: llm.EventTextDelta, Text: first[13:]},
			{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}},
			{Type: llm.EventStop, StopReason: llm.StopToolUse},
		}},
		{"not meant", "no call", []llm.Event{
			{Type: llm.EventTextDelta, Text: first[:13]},
			{Type: llm.EventTextDelta, Text: first[13:]},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := llmtest.NewFakeProvider(textTurn(first[:20], first[20:]), textTurn(tc.answer))
			w := Wrap(fake, &Options{Mode: ModeText, NewID: counterIDs()})
			if diff := cmp.Diff(tc.want, collect(t, w, weatherRequest())); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if w.Asked() != 1 {
				t.Errorf("Asked() = %d, want 1", w.Asked())
			}
			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			last := reqs[1].Messages[len(reqs[1].Messages)-1]
			if last.Role != llm.RoleUser || len(last.Content) == 0 || last.Content[0].Text != askPrompt {
				t.Errorf("second request does not end with the question: %+v", last)
			}
		})
	}
}

// TestExplainedExampleNotAsked checks that an example followed by more
// prose is an explanation: nothing runs and the model is not asked.
func TestExplainedExampleNotAsked(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn(`For example {"tool_name": "get_weather", "arguments": {"city": "Paris"}} returns the weather.`))
	w := Wrap(fake, &Options{Mode: ModeText, NewID: counterIDs()})
	evs := collect(t, w, weatherRequest())
	for _, ev := range evs {
		if ev.Type == llm.EventToolCall {
			t.Errorf("an example ran: %+v", ev)
		}
	}
	if w.Asked() != 0 || len(fake.Requests()) != 1 {
		t.Errorf("asked %d times, %d requests; want 0 and 1", w.Asked(), len(fake.Requests()))
	}
}
