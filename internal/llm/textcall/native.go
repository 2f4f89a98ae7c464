package textcall

import (
	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// nativeText reads the text of a native-mode reply for calls written as
// text, as vLLM or llama.cpp return them when started without a tool
// parser. Text goes through a [StreamParser]; its calls are held until the
// reply ends and become tool calls only when the reply made no native call
// (then they are the model's calls, not a mention beside them).
type nativeText struct {
	w      *Provider
	sp     *StreamParser
	native int
	found  []Part
}

func (w *Provider) newNativeText(req *llm.Request) *nativeText {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	return &nativeText{w: w, sp: NewParser(names).NewStream()}
}

// event passes ev on, reading text deltas, and reports whether to go on.
func (n *nativeText) event(ev llm.Event, yield func(llm.Event, error) bool) bool {
	switch ev.Type {
	case llm.EventTextDelta:
		return n.emit(n.sp.Feed(ev.Text), yield)
	case llm.EventToolCall:
		n.native++
	case llm.EventStop:
		if !n.emit(n.sp.Close(), yield) {
			return false
		}
		calls, last := 0, ""
		for _, pt := range n.found {
			if n.native > 0 && pt.Call.Raw == last {
				continue // calls of one block share its text
			}
			last = pt.Call.Raw
			ev := llm.Event{Type: llm.EventTextDelta, Text: pt.Call.Raw}
			if n.native == 0 {
				calls++
				ev = llm.Event{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: n.w.opts.NewID(), Name: pt.Call.Name, Arguments: pt.Call.Arguments}}
			}
			if !yield(ev, nil) {
				return false
			}
		}
		if calls > 0 && (ev.StopReason == llm.StopEndTurn || ev.StopReason == llm.StopSequence) {
			ev.StopReason = llm.StopToolUse
		}
	}
	return yield(ev, nil)
}

// emit yields text and reasoning at once and keeps runnable calls for the
// end; a call that cannot run is left as the text it was.
func (n *nativeText) emit(parts []Part, yield func(llm.Event, error) bool) bool {
	for _, pt := range parts {
		var ev llm.Event
		switch {
		case pt.Reasoning:
			ev = llm.Event{Type: llm.EventReasoningDelta, Text: pt.Text}
		case pt.Call == nil:
			ev = llm.Event{Type: llm.EventTextDelta, Text: pt.Text}
		case pt.Call.Err == nil:
			n.found = append(n.found, pt)
			continue
		default:
			ev = llm.Event{Type: llm.EventTextDelta, Text: pt.Call.Raw}
		}
		if !yield(ev, nil) {
			return false
		}
	}
	return true
}
