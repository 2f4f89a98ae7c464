package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// agentResult is how one agent's run ended without error.
type agentResult struct {
	text string // the final answer
	stop StopReason
	// clientCalls are the calls left to the caller (stop is
	// StopClientTools).
	clientCalls []llm.ToolCall
}

// runAgent runs spec's loop over the conversation: ask the model, run the
// calls it asks for, feed the results back, until it answers without
// calls. extra, when set, is an instruction appended for this run only.
func (t *turn) runAgent(ctx context.Context, spec store.Agent, modelOverride string, extra *llm.Message) (res agentResult, err error) {
	modelName := spec.Model
	if modelOverride != "" {
		modelName = modelOverride
	}
	m, err := t.r.model(modelName)
	if err != nil {
		return agentResult{}, err
	}
	t.setCurrent(spec.Name, modelName)
	var (
		usage  llm.Usage
		router string
	)
	started := t.r.opts.Now()
	defer func() { t.recordUsage(ctx, spec.Name, m, usage, router, started) }()

	hist, err := t.hist.ListMessages(ctx, t.req.ConversationID, store.MessageFilter{})
	if errors.Is(err, store.ErrNotFound) {
		hist, err = nil, nil // a new conversation: its first message is this turn's
	}
	if err != nil {
		return agentResult{}, fmt.Errorf("loading conversation %s: %w", t.req.ConversationID, err)
	}
	hist = t.summarize(ctx, spec, m, hist)
	own := contextFor(spec.Name, hist)
	fit := fitContext(own, m.ContextWindow)
	msgs := fit.msgs
	if n := fit.note(); n != "" {
		// Nothing leaves the request silently: the person is told.
		t.emit(Event{Kind: EventContext, Agent: spec.Name, Text: n})
	}
	if extra != nil {
		msgs = append(msgs, *extra)
	}
	// Client tools belong to the agent the caller speaks to: the caller's
	// transcript continues with that agent, not with one it handed to.
	var client []llm.ToolSpec
	if t.handoffs == 0 {
		client = t.req.ClientTools
	}
	cat := t.r.catalogFor(spec, &t.caller, client)
	if len(cat.specs) > 0 && routes(RouterMode(spec.Router), m.ToolMode) {
		d, u := t.route(ctx, m, msgs)
		usage = usageSum(usage, u)
		t.usage = usageSum(t.usage, u)
		router = "chat"
		if d.NeedsTools {
			router = "tools"
		}
		t.emit(Event{Kind: EventRouter, Agent: spec.Name, Router: &d})
		if !d.NeedsTools {
			cat = catalog{}
		}
	}
	t.r.deferTools(ctx, &cat, own, msgs)
	system := t.r.systemPrompt(ctx, spec)

	for {
		req := &llm.Request{
			Model: m.ID, System: system, Messages: msgs, Tools: cat.specs,
			MaxTokens: m.MaxTokens, Temperature: m.Temperature,
		}
		st, serr := t.step(ctx, m, req, spec.Name)
		usage = usageSum(usage, st.usage)
		t.usage = usageSum(t.usage, st.usage)
		if msg := st.message(); msg != nil {
			if err := t.append(ctx, store.Message{Message: *msg, Agent: spec.Name, RunID: t.runID}); err != nil {
				return agentResult{}, err
			}
			msgs = append(msgs, *msg)
		}
		if serr != nil {
			return agentResult{}, fmt.Errorf("asking model %q: %w", m.Name, serr)
		}
		if len(st.calls) == 0 {
			res = agentResult{text: st.text, stop: StopEndTurn}
			if st.stop == llm.StopMaxTokens {
				res.stop = StopMaxTokens
			}
			return res, nil
		}
		if cc, other := splitClient(cat, st.calls); len(cc) > 0 {
			t.handToClient(ctx, spec.Name, cat, cc, other)
			return agentResult{text: st.text, stop: StopClientTools, clientCalls: cc}, nil
		}
		results, derr := t.dispatch(ctx, spec.Name, cat, st.calls)
		if err := t.append(ctx, results...); err != nil {
			return agentResult{}, err
		}
		for _, r := range results {
			msgs = append(msgs, r.Message)
			cat.load(r.Message)
		}
		if derr != nil {
			return agentResult{}, derr
		}
	}
}

// stepResult is one model answer.
type stepResult struct {
	text  string
	calls []llm.ToolCall
	usage llm.Usage
	stop  llm.StopReason
}

// message returns the assistant message to keep, or nil when the model
// said nothing.
func (s *stepResult) message() *llm.Message {
	if s.text == "" && len(s.calls) == 0 {
		return nil
	}
	m := llm.Message{Role: llm.RoleAssistant, ToolCalls: s.calls}
	if s.text != "" {
		m.Content = []llm.Part{llm.TextPart(s.text)}
	}
	return &m
}

// step streams one model answer, forwarding text as it comes. On error the
// text so far is returned and the calls are dropped: an answer cut short
// cannot be trusted to have complete calls.
func (t *turn) step(ctx context.Context, m Model, req *llm.Request, agent string) (stepResult, error) {
	var (
		res stepResult
		b   strings.Builder
	)
	for ev, err := range m.Provider.Stream(ctx, req) {
		if err != nil {
			res.text, res.calls = b.String(), nil
			return res, err
		}
		switch ev.Type {
		case llm.EventTextDelta:
			b.WriteString(ev.Text)
			t.emit(Event{Kind: EventText, Agent: agent, Text: ev.Text})
		case llm.EventReasoningDelta:
			t.emit(Event{Kind: EventReasoning, Agent: agent, Text: ev.Text})
		case llm.EventToolCall:
			c := ev.ToolCall
			c.Arguments = validJSON(c.Arguments)
			if c.ID == "" {
				// Results are matched to calls by id; give one to a model
				// that did not.
				c.ID = fmt.Sprintf("call_%s_%d", t.runID, t.calls+len(res.calls))
			}
			res.calls = append(res.calls, c)
		case llm.EventUsage:
			res.usage = ev.Usage
		case llm.EventStop:
			res.stop = ev.StopReason
		}
	}
	res.text = b.String()
	return res, nil
}

// recordUsage records one agent run's usage; a failure is logged, since
// the answer was already given. The first agent of a turn records under the
// turn's run id, later ones (handoffs) under run id "-" agent.
func (t *turn) recordUsage(ctx context.Context, agent string, m Model, u llm.Usage, router string, started time.Time) {
	if t.r.opts.Usage == nil {
		return
	}
	runID := t.runID
	if t.agentRuns > 0 {
		runID += "-" + agent
	}
	t.agentRuns++
	wctx, cancel := persistCtx(ctx)
	defer cancel()
	err := t.r.opts.Usage.RecordUsage(wctx, store.Usage{
		RunID: runID, ConversationID: t.req.ConversationID, Agent: agent, Model: m.Name,
		InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
		Router: router, StartedAt: started, FinishedAt: t.r.opts.Now(),
	})
	if err != nil {
		t.r.logger.WarnContext(ctx, "recording usage", logKeyConversation, t.req.ConversationID, logKeyErr, err)
	}
}

// validJSON returns raw, or raw as a JSON string when it is not valid
// JSON. Malformed arguments from a model must not break the records and
// events that embed them; as a string they still fail validation, so the
// model is told its arguments were not an object.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		return raw
	}
	b, err := json.Marshal(string(raw))
	if err != nil {
		return json.RawMessage(`""`)
	}
	return b
}
