package gate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Hold keeps a tool from a caller for a reason other than its permission
// globs (a pinned tool whose definition changed, for example). It returns
// nil to let the call through, or an error saying why not. A held tool is
// neither listed nor callable, exactly like a forbidden one. Holds run on
// every listing and call: they must not do I/O.
type Hold func(ctx context.Context, c *Caller, e tools.Entry) error

// Options configures a [Gate]. A nil or zero Options is a gate with no rate
// limit, the default approval policy, no holds and no audit.
type Options struct {
	// Limiter is the per-user tool-call limit; nil means none.
	Limiter Limiter
	// Policy decides which calls need a person's approval.
	Policy Policy
	// Audit records every call that names a catalogue tool; nil records
	// nothing.
	Audit store.AuditLog
	// Holds are checked after the permission globs, in order.
	Holds []Hold
	// Logger receives audit write failures; nil discards them.
	Logger *slog.Logger
	// Observe counts one call of [Gate.Call] in the metrics: the tool, its
	// [RuleServer], the audit outcome and the call's duration (zero for a
	// call that did not run). Nil counts nothing.
	Observe func(tool, server, outcome string, d time.Duration)
}

// Gate is the one enforcement path of tool calls: see the package doc. A
// Gate is safe for concurrent use and holds no goroutines.
type Gate struct {
	opts   Options
	logger *slog.Logger
	// policy is the approval policy decided with now: Options.Policy
	// until SetPolicy replaces it.
	policy atomic.Pointer[Policy]
}

// New returns a gate configured by opts (copied).
func New(opts *Options) *Gate {
	g := &Gate{}
	if opts != nil {
		g.opts = *opts
		g.opts.Holds = append([]Hold(nil), opts.Holds...)
	}
	p := g.opts.Policy
	g.policy.Store(&p)
	g.logger = g.opts.Logger
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	return g
}

// ErrForbidden is the error of a *[Refusal] of a call the caller may not
// make (permission globs or a hold).
var ErrForbidden = errors.New("the caller may not call this tool")

// Refusal is a call the gate stopped before it ran. Approval is how the
// audit record labels it: [store.AuditForbidden] for permissions and
// holds, [store.AuditDenied] for the approval policy, empty for a rate
// limit. Err is [ErrForbidden], a *[RateError], or the policy's reason.
type Refusal struct {
	Approval store.AuditApproval
	Err      error
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// Visible reports whether c may see and call e: its permission globs
// cover it and no hold keeps it. Surfaces use it to filter listings.
func (g *Gate) Visible(ctx context.Context, c *Caller, e tools.Entry) bool {
	return g.hold(ctx, c, e) == nil
}

func (g *Gate) hold(ctx context.Context, c *Caller, e tools.Entry) error {
	if !c.Permits(e.Name) {
		return ErrForbidden
	}
	for _, h := range g.opts.Holds {
		if err := h(ctx, c, e); err != nil {
			return fmt.Errorf("%w: %w", ErrForbidden, err)
		}
	}
	return nil
}

// limit takes one tool call from c's rate limit. It returns nil or a
// *[Refusal] with no Approval.
func (g *Gate) limit(ctx context.Context, c *Caller) error {
	if g.opts.Limiter == nil {
		return nil
	}
	if err := g.opts.Limiter.Allow(ctx, c.AuditUser(), "tool calls"); err != nil {
		return &Refusal{Err: err}
	}
	return nil
}

// Decide returns what the approval policy says about calling e.
func (g *Gate) Decide(e tools.Entry) Action { return g.policy.Load().Decide(e) }

// PolicyRefusal is the refusal for a call the policy denies.
func PolicyRefusal(e tools.Entry) *Refusal {
	return &Refusal{Approval: store.AuditDenied, Err: fmt.Errorf(
		"the approval policy does not allow %s, so it was not called; an administrator can allow it with an approvals rule, "+
			"for example {server: %s, tool: %s, policy: ask}", e.Name, RuleServer(e), e.Origin.Name)}
}

// writeTimeout bounds one audit write made after the request may be gone.
const writeTimeout = 10 * time.Second

// Call is one audited call between [Gate.Begin] and [Call.Finish].
type Call struct {
	g     *Gate
	id    string
	start time.Time
}

// Begin writes the audit record of a call about to run (or refused) and
// returns its handle. A call that cannot be recorded must not be made:
// Begin returns the store's error then. The record is written even when
// ctx is already cancelled (a client that left still leaves a trace). The
// store bounds how long the write may wait ([store.AuditLog]); a timer of
// Begin's own would cost every call one, and on SQLite the begin never
// waits.
func (g *Gate) Begin(ctx context.Context, rec store.AuditRecord) (*Call, error) {
	c := &Call{g: g, start: time.Now()}
	if g.opts.Audit == nil {
		return c, nil
	}
	id, err := g.opts.Audit.BeginAudit(context.WithoutCancel(ctx), rec)
	if err != nil {
		return nil, fmt.Errorf("recording the call of %s in the audit log: %w", rec.Tool, err)
	}
	c.id = id
	return c, nil
}

// Finish records how the call ended; Duration is set from Begin when
// zero. A failed write is logged: the record stays running and the next
// start marks it interrupted.
func (c *Call) Finish(ctx context.Context, res store.AuditResult) {
	if c == nil || c.id == "" {
		return
	}
	if res.Duration == 0 {
		res.Duration = time.Since(c.start)
	}
	if l, ok := c.g.opts.Audit.(laterFinisher); ok {
		logger := c.g.logger
		l.FinishAuditLater(c.id, res, func(err error) {
			if err != nil {
				logger.Warn("finishing an audit record", logKeyErr, err)
			}
		})
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := c.g.opts.Audit.FinishAudit(wctx, c.id, res); err != nil {
		c.g.logger.WarnContext(ctx, "finishing an audit record", logKeyErr, err)
	}
}

// laterFinisher is the optional part of a [store.AuditLog] that finishes
// a record without making the call wait for the commit (the SQL stores'
// FinishAuditLater): the answer goes out while the finish joins the next
// group commit. Durability is as before: the record was kept as running
// before the call (a row on PostgreSQL, SQLite's journal of calls
// begun), and a crash before the finish commits leaves it running,
// marked interrupted at the next start.
type laterFinisher interface {
	FinishAuditLater(id string, res store.AuditResult, done func(error))
}

// Refused records a call that never ran: rec with approval, outcome
// denied (or cancelled when ctx ended) and why.
func (g *Gate) Refused(ctx context.Context, rec store.AuditRecord, approval store.AuditApproval, why string) {
	rec.Approval = approval
	c, err := g.Begin(ctx, rec)
	if err != nil {
		g.logger.WarnContext(ctx, "recording a refused call", logKeyTool, rec.Tool, logKeyErr, err)
		return
	}
	out := store.OutcomeDenied
	if ctx.Err() != nil {
		out = store.OutcomeCancelled
	}
	c.Finish(ctx, store.AuditResult{Outcome: out, Error: why, Approval: approval})
}
