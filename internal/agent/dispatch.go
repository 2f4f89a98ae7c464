package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// callOutcome is what one call produced.
type callOutcome struct {
	msg      store.Message
	outcome  store.Outcome
	timedOut bool
}

// dispatch runs the calls of one model answer: approvals first (each call
// waits for its own), then at most ParallelToolCalls at once. It returns a
// result message for every call, in the order of the calls, and an error
// when the turn must end (a limit, cancellation).
func (t *turn) dispatch(ctx context.Context, agent string, cat catalog, calls []llm.ToolCall) ([]store.Message, error) {
	lim := t.r.limits
	budget := max(lim.ToolCallsPerTurn-t.calls, 0)
	run := calls[:min(budget, len(calls))]
	t.calls += len(run)

	outs := make([]callOutcome, len(calls))
	sem := make(chan struct{}, lim.ParallelToolCalls)
	var wg sync.WaitGroup
	for i, c := range run {
		wg.Go(func() { outs[i] = t.call(ctx, agent, cat, c, sem) })
	}
	wg.Wait()

	limitMsg := fmt.Sprintf("I stopped after %d tool calls, the limit for one turn. Ask me to continue and I will pick up from here.", lim.ToolCallsPerTurn)
	for i := len(run); i < len(calls); i++ {
		c := calls[i]
		text := fmt.Sprintf("not run: the limit of %d tool calls per turn was reached", lim.ToolCallsPerTurn)
		info := callInfo(c, cat)
		outs[i] = t.refuse(ctx, agent, c, info, t.auditRecord(agent, c, info), store.OutcomeDenied, text)
	}

	msgs := make([]store.Message, len(outs))
	var timedOut []string
	for i, o := range outs {
		msgs[i] = o.msg
		if o.timedOut {
			timedOut = append(timedOut, calls[i].Name)
		}
	}
	switch {
	case ctx.Err() != nil:
		return msgs, ctx.Err()
	case len(timedOut) > 0:
		return msgs, &stopError{code: CodeCallTimeout, msg: fmt.Sprintf(
			"I stopped: the tool %s did not answer within %s. Try again, or ask for something smaller.", strings.Join(timedOut, ", "), lim.CallTimeout)}
	case len(run) < len(calls):
		return msgs, &stopError{code: CodeToolCallLimit, msg: limitMsg}
	}
	return msgs, nil
}

// call resolves the approval of one call, runs it and records it.
func (t *turn) call(ctx context.Context, agent string, cat catalog, c llm.ToolCall, sem chan struct{}) callOutcome {
	info := callInfo(c, cat)
	entry, known := cat.entries[c.Name]
	rec := t.auditRecord(agent, c, info)
	if cat.find != nil && c.Name == FindToolsName {
		return t.findTools(ctx, agent, cat.find, c, info, rec)
	}
	if !known {
		if t.forbidden(c.Name) {
			// A catalogue tool the run's caller may not call: refused and
			// audited as forbidden, as on every surface, and described to
			// the model as missing (permissions do not reveal tools).
			rec.Approval = store.AuditForbidden
			return t.refuse(ctx, agent, c, info, rec, store.OutcomeDenied, unknownToolText(c.Name, cat))
		}
		return t.refuse(ctx, agent, c, info, rec, store.OutcomeError, unknownToolText(c.Name, cat))
	}

	verdict := t.approve(ctx, agent, entry, c)
	rec.Approval = verdict.label
	if !verdict.ok {
		if ctx.Err() != nil {
			return t.refuse(ctx, agent, c, info, rec, store.OutcomeCancelled, cancelledText(ctx))
		}
		return t.refuse(ctx, agent, c, info, rec, store.OutcomeDenied, verdict.reason)
	}

	if lim := t.req.Limit; lim != nil {
		if err := lim(c.Name); err != nil {
			return t.refuse(ctx, agent, c, info, rec, store.OutcomeDenied, "not run: "+err.Error())
		}
	}

	select {
	case sem <- struct{}{}:
		defer func() { <-sem }()
	case <-ctx.Done():
		return t.refuse(ctx, agent, c, info, rec, store.OutcomeCancelled, cancelledText(ctx))
	}

	call, refused, ok := t.begin(ctx, agent, c, info, rec)
	if !ok {
		return refused
	}
	t.emit(Event{Kind: EventToolStart, Agent: agent, Call: info})
	t.trackServer(info.Server, 1)
	start := time.Now()
	callCtx, cancel := context.WithTimeout(withCall(ctx, t), t.r.limits.CallTimeout)
	req := &tools.CallRequest{Arguments: c.Arguments, Progress: func(p tools.Progress) {
		t.tryEmit(Event{Kind: EventProgress, Agent: agent, Call: info, Progress: &p})
	}}
	var (
		res *tools.Result
		err error
	)
	if cat.own[c.Name] {
		res, err = t.r.ownCall(callCtx, c.Name, req)
	} else {
		res, err = t.r.tools.Call(callCtx, c.Name, req)
	}
	dur := time.Since(start)
	timedOut := err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	t.trackServer(info.Server, -1)

	o := callOutcome{timedOut: timedOut}
	var text string
	isError := true
	switch {
	case err == nil:
		o.outcome, isError = store.OutcomeOK, res.IsError
		if res.IsError {
			o.outcome = store.OutcomeToolError
		}
		o.msg = store.Message{Message: resultToMessage(c, res), Agent: agent, RunID: t.runID}
		text = o.msg.Text()
	case timedOut:
		o.outcome, text = store.OutcomeTimeout, fmt.Sprintf("%s did not answer within %s; the call was cancelled", c.Name, t.r.limits.CallTimeout)
	case ctx.Err() != nil:
		o.outcome, text = store.OutcomeCancelled, cancelledText(ctx)
	case errors.Is(err, tools.ErrNotFound):
		o.outcome, text = store.OutcomeError, unknownToolText(c.Name, cat)
	case errors.Is(err, tools.ErrUnavailable):
		o.outcome, text = store.OutcomeError, fmt.Sprintf("%s is unavailable right now: %v. Try again later or use another tool.", c.Name, err)
	default:
		o.outcome, text = store.OutcomeError, fmt.Sprintf("calling %s failed: %v", c.Name, err)
	}
	if err != nil {
		o.msg = t.resultMessage(agent, c, text, true)
	}
	ares := store.AuditResult{Outcome: o.outcome, Duration: dur, ResultBytes: int64(len(text))}
	if isError {
		ares.Error = truncate(text, 1024)
	}
	call.Finish(ctx, ares)
	t.emit(Event{Kind: EventToolEnd, Agent: agent, Call: info, Result: &CallResult{
		Outcome: o.outcome, Text: text, IsError: isError, Duration: dur, Approval: verdict.label,
	}})
	return o
}

// forbidden reports whether name is a catalogue tool the run's Permit
// rejects.
func (t *turn) forbidden(name string) bool {
	if t.req.Permit == nil || t.req.Permit(name) {
		return false
	}
	for _, e := range t.r.own {
		if e.Name == name {
			return true
		}
	}
	for _, e := range t.r.tools.List() {
		if e.Name == name {
			return true
		}
	}
	return false
}

func (t *turn) auditRecord(agent string, c llm.ToolCall, info *CallInfo) store.AuditRecord {
	return store.AuditRecord{
		Time: t.r.opts.Now(), User: t.req.User, UserID: t.req.UserID, ConversationID: t.req.ConversationID, Agent: agent,
		RunID: t.runID, CallID: c.ID, Tool: c.Name, Server: info.Server, Arguments: c.Arguments,
	}
}

func callInfo(c llm.ToolCall, cat catalog) *CallInfo {
	info := &CallInfo{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	if e, ok := cat.entries[c.Name]; ok {
		info.Server = serverOf(e)
	}
	return info
}

func (t *turn) resultMessage(agent string, c llm.ToolCall, text string, isError bool) store.Message {
	return store.Message{Message: llm.ToolResult(c, text, isError), Agent: agent, RunID: t.runID}
}

// refuse ends a call that does not run: it records it in the audit trail
// with rec's approval, tells the consumer, and returns the error result
// the model sees.
func (t *turn) refuse(ctx context.Context, agent string, c llm.ToolCall, info *CallInfo, rec store.AuditRecord, outcome store.Outcome, text string) callOutcome {
	t.audit(ctx, rec, store.AuditResult{Outcome: outcome, Error: text})
	t.emit(Event{Kind: EventToolEnd, Agent: agent, Call: info, Result: &CallResult{
		Outcome: outcome, Text: text, IsError: true, Approval: rec.Approval,
	}})
	return callOutcome{msg: t.resultMessage(agent, c, text, true), outcome: outcome}
}

func cancelledText(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errTurnTimeout) {
		return "cancelled: the turn's time limit was reached"
	}
	return "cancelled: the user stopped the run"
}

func unknownToolText(name string, cat catalog) string {
	names := make([]string, 0, len(cat.specs))
	for _, s := range cat.specs {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return fmt.Sprintf("there is no tool named %q, and no tools are available for this request", name)
	}
	return fmt.Sprintf("there is no tool named %q; the available tools are: %s", name, strings.Join(names, ", "))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// resultToMessage converts a tool result into the tool message the model
// sees: text and images as they are, other blocks described in text.
func resultToMessage(c llm.ToolCall, res *tools.Result) llm.Message {
	m := llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, IsError: res.IsError}
	for _, b := range res.Content {
		switch {
		case b.Type == tools.ContentText:
			m.Content = append(m.Content, llm.TextPart(b.Text))
		case b.Type == tools.ContentImage && len(b.Data) > 0:
			m.Content = append(m.Content, llm.ImagePart(b.MIMEType, b.Data))
		case b.Type == tools.ContentResource && b.Text != "":
			m.Content = append(m.Content, llm.TextPart(fmt.Sprintf("[resource %s]\n%s", b.URI, b.Text)))
		case b.Type == tools.ContentResourceLink || b.Type == tools.ContentResource:
			m.Content = append(m.Content, llm.TextPart(fmt.Sprintf("[resource %s %s]", b.URI, b.MIMEType)))
		default:
			m.Content = append(m.Content, llm.TextPart(fmt.Sprintf("[%s content (%s) not shown]", b.Type, b.MIMEType)))
		}
	}
	if len(m.Content) == 0 && len(res.Structured) > 0 {
		m.Content = []llm.Part{llm.TextPart(string(res.Structured))}
	}
	if len(m.Content) == 0 {
		m.Content = []llm.Part{llm.TextPart("(no output)")}
	}
	return m
}

func (t *turn) trackServer(server string, d int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.servers[server] += d
	if t.servers[server] <= 0 {
		delete(t.servers, server)
	}
}

// begin records the start of a call in the audit trail. A call that cannot
// be recorded is not made, on every surface: then begin returns the
// refusal to answer with, and false.
func (t *turn) begin(ctx context.Context, agent string, c llm.ToolCall, info *CallInfo, rec store.AuditRecord) (*gate.Call, callOutcome, bool) {
	call, err := t.r.gate.Begin(ctx, rec)
	if err != nil {
		t.r.logger.WarnContext(ctx, "recording tool call in audit", logKeyTool, rec.Tool, logKeyErr, err)
		return nil, t.refuse(ctx, agent, c, info, rec, store.OutcomeError,
			fmt.Sprintf("%s was not called: Switchboard could not record the call in its audit log", c.Name)), false
	}
	return call, callOutcome{}, true
}

// audit records a call that never ran.
func (t *turn) audit(ctx context.Context, rec store.AuditRecord, res store.AuditResult) {
	call, err := t.r.gate.Begin(ctx, rec)
	if err != nil {
		t.r.logger.WarnContext(ctx, "recording tool call in audit", logKeyTool, rec.Tool, logKeyErr, err)
		return
	}
	call.Finish(ctx, res)
}
