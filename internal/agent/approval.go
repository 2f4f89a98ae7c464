package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// approve asks about a call the approval policy asks about, as agent runs
// do: a grant for the conversation, the run's Approver, or a stored
// approval a person decides. It returns the audit label and, when the call
// must not run, why (the model is told).
func (t *turn) approve(ctx context.Context, agent string, e tools.Entry, c llm.ToolCall) (store.AuditApproval, string) {
	granted, err := t.r.approvals.HasGrant(ctx, t.req.ConversationID, e.Name)
	if err != nil {
		t.r.logger.WarnContext(ctx, "checking approval grant", logKeyTool, e.Name, logKeyErr, err)
	}
	if granted {
		return store.AuditGranted, ""
	}
	switch t.req.Approver {
	case AutoApprove:
		return store.AuditApproved, ""
	case AutoDeny:
		return store.AuditDenied, fmt.Sprintf("%s needs the user's approval, and this run cannot ask for it (non-interactive; rerun with --yes to approve); the call was not made", e.Name)
	}
	d, state := t.ask(ctx, agent, store.Approval{
		ConversationID: t.req.ConversationID, RunID: t.runID, CallID: c.ID,
		Tool: e.Name, Server: serverOf(e), Arguments: c.Arguments,
	})
	switch state {
	case store.ApprovalApproved:
		return store.AuditApproved, ""
	case store.ApprovalExpired:
		return store.AuditExpired, fmt.Sprintf("the user did not answer the approval request for %s within %s; the call was not made", e.Name, t.limits.ApprovalTimeout)
	}
	reason := "the user declined this call"
	if d.Reason != "" {
		reason += ": " + d.Reason
	}
	// A person's refusal is "declined" on every surface; "denied" is the
	// policy's.
	return store.AuditDeclined, reason
}

// ask stores a pending approval, yields it and waits for a decision, the
// approval timeout, or the end of ctx (which counts as denied). It returns
// the decision and the final state.
func (t *turn) ask(ctx context.Context, agent string, a store.Approval) (Decision, store.ApprovalState) {
	d, stored := t.r.await(ctx, a, func(stored store.Approval) {
		t.emit(Event{Kind: EventApproval, Agent: agent, Approval: &stored})
	})
	if stored.ID != "" {
		t.emit(Event{Kind: EventApprovalResolved, Agent: agent, Approval: &stored})
	}
	return d, stored.State
}

// Ask stores a as a pending approval and waits until a person decides it
// (through [Runtime.Decide], here or in another process sharing the
// store), the approval timeout passes, or ctx ends; in the last two cases
// the approval is expired in the store, so it can no longer be decided.
// It returns the approval as it ended. The tools API uses it, so that its
// calls follow the same approval path as agent runs.
func (r *Runtime) Ask(ctx context.Context, a store.Approval) (store.Approval, error) {
	_, stored := r.await(ctx, a, nil)
	if stored.ID == "" {
		return stored, fmt.Errorf("asking approval for %s: the approval request could not be recorded", a.Tool)
	}
	return stored, nil
}

// await stores a pending approval, calls announce with it, and waits for a
// decision, the approval timeout, or the end of ctx (which counts as
// denied). It returns the decision and the approval as it ended; the
// approval has no ID when it could not be stored.
func (r *Runtime) await(ctx context.Context, a store.Approval, announce func(store.Approval)) (Decision, store.Approval) {
	a.State = store.ApprovalPending
	a.CreatedAt = r.opts.Now()
	a.ExpiresAt = a.CreatedAt.Add(r.currentLimits().ApprovalTimeout)
	stored, err := r.approvals.CreateApproval(ctx, a)
	if err != nil {
		r.logger.WarnContext(ctx, "storing approval request", logKeyTool, a.Tool, logKeyErr, err)
		a.State = store.ApprovalDenied
		return Decision{Kind: Deny, Reason: "the approval request could not be recorded"}, a
	}
	ch := make(chan Decision, 1)
	r.mu.Lock()
	r.waiting[stored.ID] = ch
	r.mu.Unlock()
	// A store shared by several processes may be decided through another
	// one. A store with a change feed wakes this call when the approval
	// changes (the feed itself polls while its connection is down); any
	// other shared store is polled. The watch starts before the approval
	// is shown, so no decision can come before it.
	getter, shared := r.approvals.(ApprovalGetter)
	var (
		poll    <-chan time.Time
		changed <-chan struct{}
	)
	if feed, ok := r.approvals.(store.Changes); ok && shared {
		var stop func()
		changed, stop = feed.Watch(store.TopicApprovals, stored.ID)
		defer stop()
	} else if shared {
		tick := time.NewTicker(ApprovalPollInterval)
		defer tick.Stop()
		poll = tick.C
	}
	if announce != nil {
		announce(stored)
	}

	timer := time.NewTimer(r.currentLimits().ApprovalTimeout)
	defer timer.Stop()
	var d Decision
wait:
	for {
		select {
		case d = <-ch:
			break wait
		case <-timer.C:
			break wait
		case <-ctx.Done():
			break wait
		case <-changed:
		case <-poll:
		}
		if got, ok := decidedElsewhere(ctx, getter, stored.ID); ok {
			r.mu.Lock()
			_, still := r.waiting[stored.ID]
			delete(r.waiting, stored.ID)
			r.mu.Unlock()
			if still {
				d = got
				break wait
			}
			// Decide in this process got there first and delivers.
		}
	}
	if d.Kind == 0 {
		r.mu.Lock()
		_, still := r.waiting[stored.ID]
		delete(r.waiting, stored.ID)
		r.mu.Unlock()
		if still {
			stored.State, stored.Reason = store.ApprovalExpired, "nobody decided in time"
			if ctx.Err() != nil {
				stored.Reason = "the run ended before a decision"
			}
			r.expire(ctx, stored.ID, stored.Reason)
			return Decision{Kind: Deny}, stored
		}
		// Decide removed the waiter and is about to deliver.
		d = <-ch
	}
	stored.State, stored.Reason, stored.DecidedBy = store.ApprovalDenied, d.Reason, d.By
	switch d.Kind {
	case Deny:
	case Cancel:
		stored.State = store.ApprovalExpired
	default:
		stored.State, stored.Scope = store.ApprovalApproved, store.ScopeOnce
		if d.Kind == ApproveConversation {
			stored.Scope = store.ScopeConversation
		}
	}
	return d, stored
}

// ApprovalPollInterval is how often a call waiting for approval checks an
// [ApprovalGetter] store for a decision made by another process.
const ApprovalPollInterval = 2 * time.Second

// decidedElsewhere reports the decision recorded on approval id, if any.
func decidedElsewhere(ctx context.Context, g ApprovalGetter, id string) (Decision, bool) {
	a, err := g.GetApproval(ctx, id)
	if err != nil {
		return Decision{}, false
	}
	switch {
	case a.State == store.ApprovalApproved && a.Scope == store.ScopeConversation:
		return Decision{Kind: ApproveConversation, Reason: a.Reason, By: a.DecidedBy}, true
	case a.State == store.ApprovalApproved:
		return Decision{Kind: ApproveOnce, Reason: a.Reason, By: a.DecidedBy}, true
	case a.State == store.ApprovalDenied:
		return Decision{Kind: Deny, Reason: a.Reason, By: a.DecidedBy}, true
	case a.State == store.ApprovalExpired:
		// Expired by another process: cancelled there (see Decide).
		return Decision{Kind: Cancel, Reason: a.Reason}, true
	}
	return Decision{}, false
}

func (r *Runtime) expire(ctx context.Context, id, reason string) {
	ex, ok := r.approvals.(ApprovalExpirer)
	if !ok {
		return
	}
	wctx, cancel := persistCtx(ctx)
	defer cancel()
	if err := ex.ExpireApproval(wctx, id, reason); err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		r.logger.WarnContext(ctx, "expiring approval", logKeyErr, err)
	}
}

// Decide answers the pending approval id. The decision is recorded in the
// [Approvals] store first (so exactly one of several deciders wins) and then
// handed to the call waiting on it, if it runs in this Runtime. It returns
// an error wrapping [ErrNotPending] when the approval was already decided
// or has expired, and an error for an invalid decision.
func (r *Runtime) Decide(ctx context.Context, approvalID string, d Decision) error {
	upd := store.Decision{State: store.ApprovalApproved, Scope: store.ScopeOnce, Reason: d.Reason, DecidedBy: d.By}
	switch d.Kind {
	case ApproveOnce:
	case ApproveConversation:
		upd.Scope = store.ScopeConversation
	case Deny:
		upd.State = store.ApprovalDenied
	case Cancel:
	default:
		return fmt.Errorf("deciding approval %s: unknown decision kind %d (want ApproveOnce, ApproveConversation, Deny or Cancel)", approvalID, d.Kind)
	}
	if d.Content != nil && upd.State == store.ApprovalApproved {
		// Stored with the decision so that a call waiting in another
		// process gets the values; the waiting call clears them.
		raw, err := json.Marshal(d.Content)
		if err != nil {
			return fmt.Errorf("deciding approval %s: the form values cannot be encoded: %w", approvalID, err)
		}
		upd.Content = raw
	}
	var err error
	if d.Kind == Cancel {
		d.Reason = cancelReason(d)
		err = r.cancel(ctx, approvalID, d.Reason)
	} else {
		_, err = r.approvals.DecideApproval(ctx, approvalID, upd)
	}
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("deciding approval %s: %w: %w", approvalID, ErrNotPending, err)
	}
	if err != nil {
		return fmt.Errorf("deciding approval %s: %w", approvalID, err)
	}
	r.mu.Lock()
	ch, ok := r.waiting[approvalID]
	delete(r.waiting, approvalID)
	r.mu.Unlock()
	if ok {
		ch <- d // buffered, and only one decider gets here
	}
	return nil
}
