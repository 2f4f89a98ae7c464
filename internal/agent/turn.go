package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// turn is the state of one [Runtime.Run]. Its fields are used by the run
// goroutine only, except out and the fields mu guards.
type turn struct {
	r     *Runtime
	req   Request
	runID string
	// caller is who makes the run's tool calls, for the gate.
	caller gate.Caller
	// hist is the Runtime's History, or for a stateless run a private one
	// holding the caller's messages, so the loop works the same in both.
	hist History
	// stop is closed when the consumer stops listening (the run's context
	// ended); emits give up then.
	stop <-chan struct{}
	out  chan Event

	// limits are the runtime's limits when the turn started: a reload
	// that changes them leaves a turn in flight as it began.
	limits Limits

	calls    int // tool calls made so far
	usage    llm.Usage
	handoffs int
	// agentRuns counts the agent runs recorded so far.
	agentRuns int

	mu sync.Mutex
	// servers counts the running calls per server, for sampling requests
	// that must find their conversation; mu guards it.
	servers map[string]int
	// curAgent and curModel are the agent and model running now; mu
	// guards them.
	curAgent, curModel string
}

func (r *Runtime) newTurn(life context.Context, req *Request) *turn {
	t := &turn{r: r, req: *req, caller: req.caller(), runID: req.RunID, hist: r.history, stop: life.Done(), out: make(chan Event, eventBuffer), servers: map[string]int{}, limits: r.currentLimits()}
	if t.runID == "" {
		t.runID = r.opts.NewID()
	}
	t.req.ClientTools = clientTools(req.ClientTools)
	if req.stateless() {
		h := newMemHistory()
		msgs := make([]store.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = store.Message{Message: m, Agent: req.Agent}
		}
		h.convs[req.ConversationID] = msgs
		t.hist = h
	}
	return t
}

// emit sends ev to the consumer, or drops it when the consumer is gone.
func (t *turn) emit(ev Event) {
	select {
	case t.out <- ev:
	case <-t.stop:
	}
}

// tryEmit sends ev if there is room, for callers that must not block.
func (t *turn) tryEmit(ev Event) {
	select {
	case t.out <- ev:
	default:
	}
}

// stopError ends a turn at a limit: the user gets Message.
type stopError struct {
	code ErrorCode
	msg  string
}

func (e *stopError) Error() string { return e.msg }

// run is the whole turn; it returns an error only when the loop cannot go
// on. life is the run's context; the turn's own adds the turn time limit.
func (t *turn) run(life context.Context) error {
	ctx, cancel := context.WithTimeoutCause(life, t.limits.TurnTimeout, errTurnTimeout)
	defer cancel()

	spec, err := t.r.agent(ctx, t.req.Agent)
	if err != nil {
		return err
	}
	if !t.req.stateless() {
		msgs := make([]store.Message, 0, len(t.req.Prelude)+1)
		for _, m := range t.req.Prelude {
			msgs = append(msgs, store.Message{Message: m, RunID: t.runID})
		}
		um := llm.UserText(t.req.Message)
		um.Content = append(um.Content, t.req.Attachments...)
		if err := t.append(ctx, append(msgs, store.Message{Message: um, RunID: t.runID})...); err != nil {
			return err
		}
	}
	speaker := spec.Name
	var res agentResult
	if target, ok := t.mentionTarget(ctx, spec, t.req.input()); ok {
		speaker = target
		res, err = t.handoff(ctx, "", target, "")
	} else {
		res, err = t.runAgent(ctx, spec, t.req.Model, nil)
		if err == nil && spec.Name == "" && res.stop == StopEndTurn {
			// The assistant may hand its answer on ("@bob please send
			// it"), once per turn: the handoff never hands off again.
			if target, ok := t.mentionTarget(ctx, spec, res.text); ok {
				speaker = target
				res, err = t.handoff(ctx, "", target, res.text)
			}
		}
	}
	if err != nil {
		return t.end(life, ctx, speaker, err)
	}
	t.emit(Event{Kind: EventDone, Agent: speaker, Done: &Done{RunID: t.runID, StopReason: res.stop, Usage: t.usage, ToolCalls: t.calls, ClientCalls: res.clientCalls}})
	return nil
}

// mentionTarget returns the agent the assistant should hand text to.
func (t *turn) mentionTarget(ctx context.Context, spec store.Agent, text string) (string, bool) {
	if spec.Name != "" || t.handoffs > 0 || text == "" {
		return "", false
	}
	return t.r.knownMention(ctx, text, "")
}

// handoff runs the agent to with the conversation so far; instruction,
// when set, is what the agent from asked of it.
func (t *turn) handoff(ctx context.Context, from, to, instruction string) (agentResult, error) {
	t.handoffs++
	spec, err := t.r.agent(ctx, to)
	if err != nil {
		return agentResult{}, &stopError{code: CodeHandoffFailed, msg: fmt.Sprintf("I could not hand this to @%s: %v", to, err)}
	}
	t.emit(Event{Kind: EventHandoff, Agent: from, Handoff: &Handoff{From: from, To: to}})
	var extra *llm.Message
	if instruction != "" {
		m := llm.UserText(fmt.Sprintf("%s asks you: %s", displayName(from), instruction))
		extra = &m
	}
	res, err := t.runAgent(ctx, spec, "", extra)
	if err == nil {
		t.emit(Event{Kind: EventHandoff, Agent: to, Handoff: &Handoff{From: to, To: from, Back: true}})
	}
	return res, err
}

func displayName(agent string) string {
	if agent == "" {
		return "The assistant"
	}
	return "@" + agent
}

// end turns a loop error into the end of the stream: a limit becomes an
// error event, a final text and done; cancellation and failures become
// the stream's error.
func (t *turn) end(life, ctx context.Context, speaker string, err error) error {
	if cerr := life.Err(); cerr != nil {
		return fmt.Errorf("running agent turn: %w", cerr)
	}
	var se *stopError
	if !errors.As(err, &se) && errors.Is(context.Cause(ctx), errTurnTimeout) {
		se = turnTimeoutError(t.limits)
	}
	if se == nil {
		return err
	}
	t.emit(Event{Kind: EventError, Agent: speaker, Error: &RunError{Code: se.code, Message: se.msg}})
	t.emit(Event{Kind: EventText, Agent: speaker, Text: se.msg})
	if aerr := t.append(ctx, store.Message{Message: llm.AssistantText(se.msg), Agent: speaker, RunID: t.runID}); aerr != nil {
		return aerr
	}
	t.emit(Event{Kind: EventDone, Agent: speaker, Done: &Done{RunID: t.runID, StopReason: StopLimit, Usage: t.usage, ToolCalls: t.calls}})
	return nil
}

func turnTimeoutError(l Limits) *stopError {
	return &stopError{code: CodeTurnTimeout, msg: fmt.Sprintf("I stopped: this turn took longer than its limit of %s. Ask again to continue from here.", l.TurnTimeout)}
}

// append persists msgs, also after ctx ended.
func (t *turn) append(ctx context.Context, msgs ...store.Message) error {
	wctx, cancel := persistCtx(ctx)
	defer cancel()
	if _, err := t.hist.AppendMessages(wctx, t.req.ConversationID, msgs...); err != nil {
		return fmt.Errorf("saving conversation %s: %w", t.req.ConversationID, err)
	}
	return nil
}
