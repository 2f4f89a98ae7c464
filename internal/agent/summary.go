package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// summaryPrompt asks the model for a summary it can carry on from.
const summaryPrompt = "You compress a conversation so that it can go on within a model's context window. " +
	"Write a summary of the conversation below for the assistant that will continue it: what the user wants, " +
	"facts and decisions established, what tools were called and what they returned that still matters, and what is open. " +
	"Be specific (names, paths, numbers); leave out pleasantries. Answer with the summary only."

// summaryHeader introduces a stored summary in model requests.
const summaryHeader = "[Summary of the earlier conversation]\n"

// summarize replaces, for model requests, the turns before the current
// one with a summary the model writes, when they no longer fit m's window
// even with old tool results shortened. The summary is stored in the
// conversation (see [store.Message.SummaryOf]) and shown to the person.
// It returns the history to build the request from; when summarising
// fails it returns hist unchanged, and fitting leaves turns out instead,
// saying so.
func (t *turn) summarize(ctx context.Context, spec store.Agent, m Model, hist []store.Message) []store.Message {
	if m.ContextWindow <= 0 || t.req.stateless() {
		return hist
	}
	if fit := fitContext(contextFor(spec.Name, hist), m.ContextWindow); fit.dropped == 0 {
		return hist
	}
	lastUser := -1
	for i := range hist {
		if hist[i].Role == llm.RoleUser && hist[i].SummaryOf == 0 {
			lastUser = i
		}
	}
	if lastUser <= 0 {
		return hist // only the current turn: nothing older to summarise
	}
	through := hist[lastUser-1].Seq
	if latestSummary(hist) >= through {
		return hist // already summarised up to here; fitting does the rest
	}
	sm := t.summariser(ctx, spec.Name, m)
	window := m.ContextWindow
	if sm.ContextWindow > 0 && sm.ContextWindow < window {
		window = sm.ContextWindow
	}
	transcript := renderTranscript(fitContext(contextFor(spec.Name, hist[:lastUser]), window*2).msgs)
	req := &llm.Request{
		Model: sm.ID, System: summaryPrompt,
		Messages: []llm.Message{llm.UserText(transcript)}, MaxTokens: sm.MaxTokens,
	}
	resp, err := llm.Collect(sm.Provider.Stream(ctx, req))
	if err == nil && strings.TrimSpace(resp.Message.Text()) == "" {
		err = fmt.Errorf("the model wrote an empty summary")
	}
	if err != nil {
		t.r.logger.WarnContext(ctx, "summarising conversation", logKeyConversation, t.req.ConversationID, logKeyErr, err)
		return hist
	}
	t.usage = usageSum(t.usage, resp.Usage)
	text := strings.TrimSpace(resp.Message.Text())
	sum := store.Message{Message: llm.UserText(text), Agent: spec.Name, RunID: t.runID, SummaryOf: through}
	if err := t.append(ctx, sum); err != nil {
		t.r.logger.WarnContext(ctx, "storing conversation summary", logKeyConversation, t.req.ConversationID, logKeyErr, err)
		return hist
	}
	note := fmt.Sprintf("The conversation before this message (%d messages) no longer fits the model's context window, "+
		"so the model summarised it; the summary is kept in the conversation and the messages stay stored.", through)
	t.emit(Event{Kind: EventContext, Agent: spec.Name, Summary: text, Text: note})
	return append(hist[:len(hist):len(hist)], sum)
}

// summariser returns the model that writes the summary of agent's
// conversation: the configured summary model ([Options].SummaryModel), or
// m, the turn's own, when none is set or it cannot be resolved (said in
// the log: configuration validation names unknown models before this).
func (t *turn) summariser(ctx context.Context, agent string, m Model) Model {
	if t.r.opts.SummaryModel == nil {
		return m
	}
	name := t.r.opts.SummaryModel(agent)
	if name == "" || name == m.Name {
		return m
	}
	sm, err := t.r.model(name)
	if err != nil {
		t.r.logger.WarnContext(ctx, "summary model unavailable; summarising with the turn's model", logKeyConversation, t.req.ConversationID, logKeyErr, err)
		return m
	}
	return sm
}

// latestSummary returns the SummaryOf of the newest summary in hist, or 0.
func latestSummary(hist []store.Message) int64 {
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].SummaryOf > 0 {
			return hist[i].SummaryOf
		}
	}
	return 0
}

// renderTranscript writes messages as plain text for the summariser, so
// that calls and results need no pairing on the wire.
func renderTranscript(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleTool:
			fmt.Fprintf(&b, "[result of %s]\n%s\n\n", m.ToolName, m.Text())
		default:
			if t := m.Text(); t != "" {
				fmt.Fprintf(&b, "%s: %s\n\n", m.Role, t)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "[%s calls %s %s]\n\n", m.Role, c.Name, c.Arguments)
			}
		}
	}
	return b.String()
}
