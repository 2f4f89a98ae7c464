package agent

import (
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// contextFor returns the model messages agent sees from the stored
// history: user messages, its own messages in full, and only the text of
// other agents' answers (their tool traffic belongs to their tools, which
// this agent may not have). Calls left without a result (a crash between
// call and result) get one saying so, because providers reject a call
// without its result.
//
// The newest summary in hist (see [store.Message.SummaryOf]) stands for
// the messages it summarises: it comes first, as a user message, and only
// the messages after those it covers follow.
func contextFor(agent string, hist []store.Message) []llm.Message {
	out := make([]llm.Message, 0, len(hist))
	if through := latestSummary(hist); through > 0 {
		var rest []store.Message
		for _, m := range hist {
			switch {
			case m.SummaryOf == through:
				out = append(out, llm.UserText(summaryHeader+m.Text()))
			case m.SummaryOf == 0 && m.Seq > through:
				rest = append(rest, m)
			}
		}
		hist = rest
	}
	var open []llm.ToolCall // calls of agent's last assistant message without results yet
	closeOpen := func() {
		for _, c := range open {
			out = append(out, llm.ToolResult(c, "no result was recorded for this call (it was interrupted)", true))
		}
		open = nil
	}
	for _, m := range hist {
		switch {
		case m.Role == llm.RoleTool && m.Agent == agent:
			i := slices.IndexFunc(open, func(c llm.ToolCall) bool { return c.ID == m.ToolCallID })
			if i < 0 {
				continue // a result without its call
			}
			open = slices.Delete(open, i, i+1)
			out = append(out, m.Message)
		case m.Role == llm.RoleTool:
		case m.Role == llm.RoleAssistant && m.Agent != agent:
			closeOpen()
			if txt := m.Text(); txt != "" {
				out = appendText(out, txt)
			}
		case m.Role == llm.RoleAssistant:
			closeOpen()
			out = append(out, m.Message)
			open = slices.Clone(m.ToolCalls)
		default:
			closeOpen()
			out = append(out, m.Message)
		}
	}
	closeOpen()
	return out
}

// appendText appends an assistant text, merged into a preceding
// text-only assistant message so that roles keep alternating.
func appendText(out []llm.Message, txt string) []llm.Message {
	if n := len(out); n > 0 && out[n-1].Role == llm.RoleAssistant && len(out[n-1].ToolCalls) == 0 {
		prev := out[n-1].Text()
		out[n-1] = llm.AssistantText(prev + "\n\n" + txt)
		return out
	}
	return append(out, llm.AssistantText(txt))
}

// charsPerToken is the rough size of a token in characters, for budgets
// only: it errs on the side of keeping too little rather than overflowing.
const charsPerToken = 3

// fitWindow drops the oldest messages so that the history takes at most
// half of a context window of window tokens (the rest is for the system
// prompt, the tool manifest and the answer). It cuts only before a user
// message, so a call is never separated from its result, and always keeps
// the last user message and what follows it, and every system message.
// window <= 0 keeps everything.
func fitWindow(msgs []llm.Message, window int) []llm.Message {
	if window <= 0 {
		return msgs
	}
	budget := window / 2 * charsPerToken
	size := 0
	cut := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		size += messageSize(&msgs[i])
		if msgs[i].Role != llm.RoleUser {
			continue
		}
		if size > budget && cut >= 0 {
			break
		}
		cut = i
	}
	if cut <= 0 {
		return msgs
	}
	// System messages (a stateless caller's instructions) are kept: they
	// are few, and dropping them would change how the model behaves.
	var kept []llm.Message
	for _, m := range msgs[:cut] {
		if m.Role == llm.RoleSystem {
			kept = append(kept, m)
		}
	}
	if kept == nil {
		return msgs[cut:]
	}
	return append(kept, msgs[cut:]...)
}

func messageSize(m *llm.Message) int {
	n := 0
	for _, p := range m.Content {
		n += len(p.Text) + len(p.Data)
	}
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}
