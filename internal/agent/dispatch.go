package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	lim := t.limits
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

// call makes one call through the gate's one entry point (permission,
// rate limit, approval, audit, the call itself; see [gate.Gate.Call]) and
// tells the consumer how it went.
func (t *turn) call(ctx context.Context, agent string, cat catalog, c llm.ToolCall, sem chan struct{}) callOutcome {
	info := callInfo(c, cat)
	if cat.find != nil && c.Name == FindToolsName {
		return t.findTools(ctx, agent, cat.find, c, info, t.auditRecord(agent, c, info))
	}
	if why := roleRefusal(&t.req, c.Name); why != "" && t.caller.Permits(c.Name) {
		// A tool that changes shared state needs the role the API's
		// routes need, whoever would approve it (a tool outside the
		// caller's permissions stays one that does not exist).
		rec := t.auditRecord(agent, c, info)
		rec.Approval = store.AuditForbidden
		return t.refuse(ctx, agent, c, info, rec, store.OutcomeDenied, why)
	}
	sf := &gate.Surface{
		Catalog: turnCatalog{t: t, cat: cat, agent: agent, info: info, sem: sem},
		Asking:  gate.AskStored,
		Ask: func(ctx context.Context, _ *gate.Request, e tools.Entry) (store.AuditApproval, string) {
			return t.approve(ctx, agent, e, c)
		},
		Timeout: t.limits.CallTimeout,
	}
	out := t.r.gate.Call(withCall(ctx, t), sf, &gate.Request{
		Caller: &t.caller, Name: c.Name, Arguments: c.Arguments, Time: t.r.opts.Now(),
		Agent: agent, ConversationID: t.req.ConversationID, RunID: t.runID, CallID: c.ID,
		Progress: func(p tools.Progress) {
			t.tryEmit(Event{Kind: EventProgress, Agent: agent, Call: info, Progress: &p})
		},
	})
	o := callOutcome{outcome: out.Outcome, timedOut: out.Outcome == store.OutcomeTimeout}
	var (
		text    string
		isError = true
		ref     *gate.Refusal
	)
	switch {
	case errors.As(out.Err, &ref):
		text = t.refusalText(ctx, c, cat, ref)
	case out.Err == nil:
		o.msg = store.Message{Message: resultToMessage(c, out.Result), Agent: agent, RunID: t.runID}
		text, isError = o.msg.Text(), out.Result.IsError
	case o.timedOut:
		text = fmt.Sprintf("%s did not answer within %s; the call was cancelled", c.Name, t.limits.CallTimeout)
	case out.Outcome == store.OutcomeCancelled:
		text = cancelledText(ctx)
	case errors.Is(out.Err, tools.ErrNotFound):
		text = unknownToolText(c.Name, cat)
	case errors.Is(out.Err, tools.ErrUnavailable):
		text = fmt.Sprintf("%s is unavailable right now: %v. Try again later or use another tool.", c.Name, out.Err)
	default:
		text = fmt.Sprintf("calling %s failed: %v", c.Name, out.Err)
	}
	if o.msg.Role == "" {
		o.msg = t.resultMessage(agent, c, text, true)
	}
	t.emit(Event{Kind: EventToolEnd, Agent: agent, Call: info, Result: &CallResult{
		Outcome: o.outcome, Text: text, IsError: isError, Duration: out.Duration, Approval: out.Approval,
	}})
	return o
}

// refusalText is what the model is told of a call the gate refused.
func (t *turn) refusalText(ctx context.Context, c llm.ToolCall, cat catalog, ref *gate.Refusal) string {
	switch {
	case errors.Is(ref, gate.ErrUnknownTool), ref.Approval == store.AuditForbidden:
		// Permissions do not reveal tools: a forbidden one looks missing.
		return unknownToolText(c.Name, cat)
	case errors.Is(ref, gate.ErrNotRecorded):
		return fmt.Sprintf("%s was not called: Switchboard could not record the call in its audit log", c.Name)
	case ctx.Err() != nil:
		return cancelledText(ctx)
	case ref.Approval == "":
		return "not run: " + ref.Error() // the user's tool-call limit
	}
	return ref.Error()
}

// turnCatalog is the gate's view of one agent's tools in a turn: the
// agent's catalogue, plus the catalogue tools the caller may not call
// (so that the gate refuses and records them as forbidden). A call waits
// for one of the turn's parallel slots and is announced when it starts.
type turnCatalog struct {
	t     *turn
	cat   catalog
	agent string
	info  *CallInfo
	sem   chan struct{}
}

func (tc turnCatalog) Lookup(name string) (tools.Entry, bool) {
	if e, ok := tc.cat.entries[name]; ok {
		return e, true
	}
	// Out of the agent's catalogue: a tool of another agent's servers is
	// unknown here, one the caller may not see is forbidden.
	for _, e := range tc.t.r.own {
		if e.Name == name {
			return e, !tc.t.caller.Permits(name)
		}
	}
	if e, ok := tc.t.r.tools.Lookup(name); ok {
		return e, !tc.t.r.gate.Visible(context.Background(), &tc.t.caller, e)
	}
	return tools.Entry{}, false
}

// LookupHeld finds a tool held by pinning, when the catalogue holds tools.
func (tc turnCatalog) LookupHeld(name string) (tools.Entry, *tools.HeldError) {
	if h, ok := tc.t.r.tools.(interface {
		LookupHeld(name string) (tools.Entry, *tools.HeldError)
	}); ok {
		return h.LookupHeld(name)
	}
	return tools.Entry{}, nil
}

func (tc turnCatalog) Call(ctx context.Context, name string, req *tools.CallRequest) (*tools.Result, error) {
	t := tc.t
	select {
	case tc.sem <- struct{}{}:
		defer func() { <-tc.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.emit(Event{Kind: EventToolStart, Agent: tc.agent, Call: tc.info})
	t.trackServer(tc.info.Server, 1)
	defer t.trackServer(tc.info.Server, -1)
	if tc.cat.own[name] {
		return t.r.ownCall(ctx, name, req)
	}
	return t.r.tools.Call(ctx, name, req)
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
