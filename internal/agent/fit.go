package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// trimKeep is how much of an old tool result's text is kept when results
// are trimmed to fit the context window: enough for the model to recall
// what the call returned.
const trimKeep = 600

// fitted is a history fitted into a model's context window, with what
// was shortened or left out to get there.
type fitted struct {
	msgs []llm.Message
	// trimmed counts the older tool results shortened; dropped the older
	// messages left out of the request (they stay stored).
	trimmed, dropped int
}

// note says what fitting did, for the person; "" when nothing changed.
func (f fitted) note() string {
	var parts []string
	if f.trimmed > 0 {
		parts = append(parts, fmt.Sprintf("%d older tool result(s) were shortened", f.trimmed))
	}
	if f.dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d older message(s) were left out", f.dropped))
	}
	if len(parts) == 0 {
		return ""
	}
	return "To fit the model's context window, " + strings.Join(parts, " and ") +
		" of this request; the conversation keeps them in full."
}

// fitContext fits msgs into half of a window of window tokens: first the
// results of earlier turns' tool calls are shortened, oldest first, then,
// if that is not enough, [fitWindow] leaves out whole older turns.
// window <= 0 keeps everything.
func fitContext(msgs []llm.Message, window int) fitted {
	if window <= 0 {
		return fitted{msgs: msgs}
	}
	trimmedMsgs, n := trimToolResults(msgs, window/2*charsPerToken)
	out := fitWindow(trimmedMsgs, window)
	return fitted{msgs: out, trimmed: n, dropped: len(trimmedMsgs) - len(out)}
}

// trimToolResults shortens tool results before the last user message,
// oldest first, until the history takes at most budget characters. It
// returns msgs itself when nothing was trimmed and a copy otherwise.
func trimToolResults(msgs []llm.Message, budget int) ([]llm.Message, int) {
	total := 0
	lastUser := -1
	for i := range msgs {
		total += messageSize(&msgs[i])
		if msgs[i].Role == llm.RoleUser {
			lastUser = i
		}
	}
	if total <= budget || lastUser <= 0 {
		return msgs, 0
	}
	var out []llm.Message
	n := 0
	for i := 0; i < lastUser && total > budget; i++ {
		m := &msgs[i]
		size := messageSize(m)
		if m.Role != llm.RoleTool || size <= trimKeep {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		short := trimmedResult(m, size)
		total += messageSize(&short) - size
		out[i] = short
		n++
	}
	if out == nil {
		return msgs, 0
	}
	return out, n
}

// trimmedResult is m with its text cut to trimKeep characters and its
// images left out, saying so.
func trimmedResult(m *llm.Message, size int) llm.Message {
	text := m.Text()
	cut := min(len(text), trimKeep)
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	short := *m
	short.Content = []llm.Part{llm.TextPart(fmt.Sprintf("%s\n[… %d characters of this earlier result were trimmed to fit the context window]", text[:cut], size-cut))}
	return short
}
