package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Catalog is what [Gate.Call] finds and calls tools in: the app's
// [tools.Registry], or an agent's view of it. Lookup and Call are as the
// registry's; a Catalog that also has LookupHeld (the registry does)
// lets the gate tell a held tool from a missing one.
type Catalog interface {
	Lookup(name string) (tools.Entry, bool)
	Call(ctx context.Context, name string, req *tools.CallRequest) (*tools.Result, error)
}

// heldCatalog is the optional part of a [Catalog] that finds held tools.
type heldCatalog interface {
	LookupHeld(name string) (tools.Entry, *tools.HeldError)
}

// Asking is how a surface asks a person to approve a call that the
// approval policy asks about.
type Asking int

const (
	// AskRefuse: the surface cannot ask (a chat completion, a REST call on
	// a server without approvals); the call is refused.
	AskRefuse Asking = iota
	// AskStored: a stored approval that a person decides through the API
	// or web UI while the call waits (REST, agent runs).
	AskStored
	// AskElicit: an MCP elicitation sent to the calling client.
	AskElicit
	// AskTerminal: the person at the terminal typed this exact call
	// (`switchboard call`), which approves it.
	AskTerminal
)

// Surface is one kind of caller of [Gate.Call]: where its tools are, how
// it asks for approval, and how its calls are labelled and bounded. A
// Surface is a value the caller builds (per server, per turn); it is not
// modified by the gate.
type Surface struct {
	// Catalog is where the called tool is looked up and called. Required.
	Catalog Catalog
	// Agent labels the audit records of the surface's calls ("mcp:http",
	// "cli"); a [Request] naming an agent overrides it.
	Agent string
	// Asking says how the surface asks; Ask does it. With AskTerminal the
	// call is approved without Ask; with AskRefuse, or a nil Ask, it is
	// refused as [store.AuditUnavailable].
	Asking Asking
	// Ask asks a person about req's call of e. It returns the audit label
	// of the decision and, when the call must not run, why (said to the
	// caller as it is).
	Ask func(ctx context.Context, req *Request, e tools.Entry) (store.AuditApproval, string)
	// Timeout bounds the tool call itself (not the approval); zero means
	// only ctx bounds it. A call that runs out of it ends as
	// [store.OutcomeTimeout].
	Timeout time.Duration
}

// Request is one tool call as a surface received it.
type Request struct {
	// Caller is who calls; required.
	Caller *Caller
	// Name is the catalogue name of the tool called.
	Name      string
	Arguments json.RawMessage
	// Progress receives the tool's progress reports; nil drops them.
	Progress func(tools.Progress)
	// The audit record's context. Agent "" means the surface's.
	Agent, ConversationID, RunID, CallID string
	// Time, when set, is the audit record's time (a clock the surface
	// controls); zero means when the record is written.
	Time time.Time
}

// Result is how a call through [Gate.Call] ended: exactly one of Result
// (the tool ran and answered) and Err is set. Err is a *[Refusal] when the
// call did not run, or the error the catalogue returned.
type Result struct {
	Result *tools.Result
	Err    error
	// Entry is the tool called (zero when no catalogue tool has the name).
	Entry    tools.Entry
	Outcome  store.Outcome
	Approval store.AuditApproval
	Duration time.Duration
}

// Ran reports whether the tool was called.
func (r *Result) Ran() bool {
	var ref *Refusal
	return !errors.As(r.Err, &ref)
}

// ErrUnknownTool is the refusal of a call of a name no catalogue tool
// has. It is neither audited nor counted: a client may send any name.
var ErrUnknownTool = errors.New("no tool of this name")

// ErrNotRecorded is the refusal of a call whose audit record could not
// be written: a call that cannot be recorded is not made.
var ErrNotRecorded = errors.New("the call could not be recorded in the audit log, so it was not made")

// maxAuditError bounds the error text an audit record keeps.
const maxAuditError = 1024

// Call is the one entry point of a tool call, for every surface. In order:
// the tool is looked up (an unknown name is refused, unrecorded); the
// caller's permission globs and the holds (forbidden: refused and recorded
// as [store.AuditForbidden]); a tool held by pinning (refused and recorded
// as [store.AuditHeld]); the caller's rate limit (refused, not recorded: a
// flood of calls must not become a flood of writes); the approval policy,
// asking through the surface when it asks (a refusal is recorded with the
// decision's label); the audit record begun (or the call is not made);
// the call, bounded by the surface's timeout; the record finished. Every
// call that names a catalogue tool is counted once in [Options].Observe,
// with its audit outcome and the tool's [RuleServer].
//
// The returned Result is the surface's to present: each one words a
// refusal its own way, but the record and the count are the gate's.
func (g *Gate) Call(ctx context.Context, sf *Surface, req *Request) Result {
	e, ok := sf.Catalog.Lookup(req.Name)
	var held *tools.HeldError
	if !ok {
		if hc, can := sf.Catalog.(heldCatalog); can {
			e, held = hc.LookupHeld(req.Name)
		}
		if held == nil {
			return Result{Err: &Refusal{Err: fmt.Errorf("%w: %q", ErrUnknownTool, req.Name)}, Outcome: store.OutcomeError}
		}
	}
	rec := store.AuditRecord{
		Time: req.Time, User: req.Caller.AuditUser(), UserID: req.Caller.ID, Agent: req.Agent, ConversationID: req.ConversationID,
		RunID: req.RunID, CallID: req.CallID, Tool: req.Name, Server: RuleServer(e), Arguments: req.Arguments,
	}
	if rec.Agent == "" {
		rec.Agent = sf.Agent
	}
	if err := g.hold(ctx, req.Caller, e); err != nil {
		return g.refuse(ctx, rec, e, &Refusal{Approval: store.AuditForbidden, Err: err}, "the caller's permissions do not include this tool")
	}
	if held != nil {
		return g.refuse(ctx, rec, e, &Refusal{Approval: store.AuditHeld, Err: held}, held.Error())
	}
	if err := g.limit(ctx, req.Caller); err != nil {
		g.observe(rec, store.OutcomeDenied, 0)
		return Result{Err: err, Entry: e, Outcome: store.OutcomeDenied}
	}
	approval, why := g.Approve(ctx, sf, req, e)
	if why != "" {
		return g.refuse(ctx, rec, e, &Refusal{Approval: approval, Err: errors.New(why)}, why)
	}
	rec.Approval = approval
	call, err := g.Begin(ctx, rec)
	if err != nil {
		g.logger.WarnContext(ctx, "call not audited", logKeyTool, rec.Tool, logKeyErr, err)
		g.observe(rec, store.OutcomeError, 0)
		return Result{Err: &Refusal{Approval: approval, Err: fmt.Errorf("%w: %w", ErrNotRecorded, err)}, Entry: e, Outcome: store.OutcomeError, Approval: approval}
	}
	// The call acts for the caller the gate checked, whatever the surface
	// put in ctx: a per-user upstream uses that user's credentials only.
	// It is made in the request's conversation, which scopes what a
	// conversation's tools reach (its uploads).
	cctx, cancel := tools.WithConversation(tools.WithUser(ctx, req.Caller.ID), req.ConversationID), context.CancelFunc(func() {})
	if sf.Timeout > 0 {
		cctx, cancel = context.WithTimeout(cctx, sf.Timeout)
	}
	start := time.Now()
	res, err := sf.Catalog.Call(cctx, req.Name, &tools.CallRequest{Arguments: req.Arguments, Progress: req.Progress})
	d := time.Since(start)
	out := Result{Result: res, Err: err, Entry: e, Approval: approval, Duration: d}
	out.Outcome = classify(ctx, cctx, res, err)
	cancel()
	if err != nil {
		out.Result = nil
	}
	ar := store.AuditResult{Outcome: out.Outcome, Duration: d, Approval: approval}
	switch {
	case err != nil:
		ar.Error = truncate(err.Error())
	case res != nil:
		ar.ResultBytes = resultBytes(res)
		if res.IsError {
			ar.Error = truncate(firstText(res))
		}
	}
	call.Finish(ctx, ar)
	g.observe(rec, out.Outcome, d)
	return out
}

// Approve applies the approval policy to a permitted call of e, asking
// through sf when the policy asks: the audit label, and why the call must
// not run ("" to run it). [Gate.Call] uses it; a surface calls it alone
// only for what is not a catalogue call (an MCP server's sampling request).
func (g *Gate) Approve(ctx context.Context, sf *Surface, req *Request, e tools.Entry) (store.AuditApproval, string) {
	switch g.Decide(e) {
	case ActionAllow:
		return store.AuditAutoApproved, ""
	case ActionAsk:
	default:
		ref := PolicyRefusal(e)
		return ref.Approval, ref.Error()
	}
	switch {
	case sf.Asking == AskTerminal:
		return store.AuditApproved, ""
	case sf.Asking == AskRefuse || sf.Ask == nil:
		return store.AuditUnavailable, fmt.Sprintf("%s needs a person's approval before each call, and this surface cannot ask for it, so it was not called; "+
			"ask through a surface that can (an agent run, the tools API, an MCP client with elicitation), or allow it with an approvals rule, "+
			"for example {server: %s, tool: %s, policy: allow}", e.Name, RuleServer(e), e.Origin.Name)
	}
	return sf.Ask(ctx, req, e)
}

// refuse records and counts a call that did not run.
func (g *Gate) refuse(ctx context.Context, rec store.AuditRecord, e tools.Entry, ref *Refusal, why string) Result {
	g.Refused(ctx, rec, ref.Approval, why)
	g.observe(rec, store.OutcomeDenied, 0)
	return Result{Err: ref, Entry: e, Outcome: store.OutcomeDenied, Approval: ref.Approval}
}

// observe counts one call in the metrics.
func (g *Gate) observe(rec store.AuditRecord, out store.Outcome, d time.Duration) {
	if g.opts.Observe != nil {
		g.opts.Observe(rec.Tool, rec.Server, string(out), d)
	}
}

// classify is the outcome of a call that ran: cancelled when the caller's
// ctx ended, a timeout when only the call's own bound did, otherwise as
// [store.OutcomeOf] says.
func classify(ctx, cctx context.Context, res *tools.Result, err error) store.Outcome {
	switch {
	case err == nil:
		return store.OutcomeOf(nil, res != nil && res.IsError)
	case ctx.Err() != nil:
		return store.OutcomeCancelled
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return store.OutcomeTimeout
	}
	return store.OutcomeOf(err, false)
}

// resultBytes is the size of what the tool answered.
func resultBytes(r *tools.Result) int64 {
	n := len(r.Structured)
	for _, c := range r.Content {
		n += len(c.Text) + len(c.Data)
	}
	return int64(n)
}

func firstText(r *tools.Result) string {
	for _, c := range r.Content {
		if c.Type == tools.ContentText {
			return c.Text
		}
	}
	return "the tool reported an error"
}

func truncate(s string) string {
	if len(s) <= maxAuditError {
		return s
	}
	return strings.ToValidUTF8(s[:maxAuditError], "") + "…"
}
