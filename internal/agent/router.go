package agent

import (
	"context"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// RouterMode says when the router pre-check runs.
type RouterMode string

const (
	// RouterAuto ("" too) runs it for models in text tool mode only, where
	// a long tool manifest costs the most.
	RouterAuto   RouterMode = "auto"
	RouterOff    RouterMode = "off"
	RouterAlways RouterMode = "always"
)

const routerPrompt = `You decide whether a request needs tools (reading or writing files, running commands, calling services, looking things up) or can be answered from general knowledge and the conversation alone. Reply with exactly one word: yes if it needs tools, no if it does not.`

// routerMaxTokens leaves room for a model that wraps its word in a
// sentence, while keeping the pre-check cheap.
const routerMaxTokens = 16

// route asks m whether the latest request of msgs needs tools. Any
// failure, or an answer that is neither yes nor no, means yes: offering
// tools is the safe side.
func (t *turn) route(ctx context.Context, m Model, msgs []llm.Message) (RouterDecision, llm.Usage) {
	resp, err := llm.Generate(ctx, m.Provider, &llm.Request{
		Model:     m.ID,
		System:    routerPrompt,
		Messages:  []llm.Message{llm.UserText(routerInput(msgs))},
		MaxTokens: routerMaxTokens,
	})
	if err != nil {
		return RouterDecision{NeedsTools: true, Answer: "router failed: " + err.Error()}, llm.Usage{}
	}
	answer := resp.Text()
	yes, ok := parseYesNo(answer)
	return RouterDecision{NeedsTools: yes || !ok, Answer: answer}, resp.Usage
}

// Bounds of what the router is shown of the conversation: it decides on one
// word, so a long tool result or answer would cost tokens for nothing.
const (
	routerRequestBytes  = 2000
	routerPreviousBytes = 600
	routerCallBytes     = 300
	routerCallsShown    = 5
)

// routerInput is the text the router decides on: the new request and, when
// the conversation has them, the assistant's previous answer and the tool
// calls of the last turn. A follow-up such as a bare path, given after a
// tool failed and the assistant asked for it, reads as a tool request only
// with what came before it.
func routerInput(msgs []llm.Message) string {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return "Request: \n\nDoes this request need tools? Answer yes or no."
	}
	// The previous turn: from the user message before last to last.
	prev := -1
	for i := last - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			prev = i
			break
		}
	}
	var (
		answer string
		calls  []llm.ToolCall
	)
	failed := make(map[string]bool)
	for i := prev + 1; i < last; i++ {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleAssistant:
			if s := strings.TrimSpace(m.Text()); s != "" {
				answer = s
			}
			calls = append(calls, m.ToolCalls...)
		case llm.RoleTool:
			failed[m.ToolCallID] = m.IsError
		}
	}
	var b strings.Builder
	if len(calls) > 0 {
		b.WriteString("Tools called in the previous turn:\n")
		for _, c := range calls[max(0, len(calls)-routerCallsShown):] {
			b.WriteString("- " + clipEnd(c.Name+" "+string(c.Arguments), routerCallBytes))
			if failed[c.ID] {
				b.WriteString(" (failed)")
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if answer != "" {
		b.WriteString("Assistant's previous answer: " + clipEnd(answer, routerPreviousBytes) + "\n\n")
	}
	followUp := b.Len() > 0
	b.WriteString("Request: " + clipEnd(msgs[last].Text(), routerRequestBytes))
	if followUp {
		b.WriteString("\n\nDoes this request, read as a reply to the previous turn, need tools? Answer yes or no.")
	} else {
		b.WriteString("\n\nDoes this request need tools? Answer yes or no.")
	}
	return b.String()
}

// clipEnd cuts s to at most n bytes on a rune boundary, marking the cut.
func clipEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// parseYesNo reads a yes/no answer tolerantly: case, punctuation, markdown
// and a short lead-in ("Answer: No.") are ignored; the first yes-like or
// no-like word decides. ok is false when there is none.
func parseYesNo(s string) (yes, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return (r < 'a' || r > 'z') && r != '\''
	})
	for _, w := range words {
		switch w {
		case "yes", "y", "true":
			return true, true
		case "no", "n", "false", "none", "not", "doesn't", "don't":
			return false, true
		}
	}
	return false, false
}
