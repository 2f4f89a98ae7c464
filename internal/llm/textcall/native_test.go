package textcall

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// A server without a tool parser (vLLM, llama.cpp) answers a native request
// with the call as text: it becomes a tool call, and reasoning stays
// reasoning.
func TestNativeReplyWithTextCall(t *testing.T) {
	for _, mode := range []Mode{ModeNative, ModeAuto} {
		fake := llmtest.NewFakeProvider(textTurn(
			"<think>Paris, so get_weather.</think>Checking.\n<tool_",
			"call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
		))
		w := Wrap(fake, &Options{Mode: mode, NewID: counterIDs()})
		want := []llm.Event{
			{Type: llm.EventReasoningDelta, Text: "Paris, so get_weather."},
			{Type: llm.EventTextDelta, Text: "Checking.\n"},
			{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}},
			{Type: llm.EventStop, StopReason: llm.StopToolUse},
		}
		if diff := cmp.Diff(want, collect(t, w, weatherRequest())); diff != "" {
			t.Errorf("%s: events mismatch (-want +got):\n%s", mode, diff)
		}
		if len(fake.Requests()[0].Tools) == 0 {
			t.Errorf("%s: tools were not sent natively", mode)
		}
	}
}

// Beside a native call, a call in the text is a mention, not a second call.
func TestNativeCallWinsOverTextCall(t *testing.T) {
	turn := llmtest.Turn{
		Text:      []string{`I used <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>`},
		ToolCalls: []llmtest.ToolCallScript{{ID: "x", Name: "get_time"}},
	}
	fake := llmtest.NewFakeProvider(llmtest.FakeReply{Turn: turn})
	w := Wrap(fake, &Options{Mode: ModeNative, NewID: counterIDs()})
	var calls []string
	var text string
	for _, ev := range collect(t, w, weatherRequest()) {
		switch ev.Type {
		case llm.EventToolCall:
			calls = append(calls, ev.ToolCall.Name)
		case llm.EventTextDelta:
			text += ev.Text
		}
	}
	if diff := cmp.Diff([]string{"get_time"}, calls); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	if want := `I used <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>`; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
}
