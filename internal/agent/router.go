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

// route asks m whether text needs tools. Any failure, or an answer that is
// neither yes nor no, means yes: offering tools is the safe side.
func (t *turn) route(ctx context.Context, m Model, text string) (RouterDecision, llm.Usage) {
	resp, err := llm.Generate(ctx, m.Provider, &llm.Request{
		Model:     m.ID,
		System:    routerPrompt,
		Messages:  []llm.Message{llm.UserText("Request: " + text + "\n\nDoes this request need tools? Answer yes or no.")},
		MaxTokens: routerMaxTokens,
	})
	if err != nil {
		return RouterDecision{NeedsTools: true, Answer: "router failed: " + err.Error()}, llm.Usage{}
	}
	answer := resp.Text()
	yes, ok := parseYesNo(answer)
	return RouterDecision{NeedsTools: yes || !ok, Answer: answer}, resp.Usage
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
