package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ElicitationTool is the pseudo-tool an elicitation is asked as: its
// approval's Arguments are {"message", "mode", "schema", "url",
// "elicitationId"}, and a surface answers it with [Decision].Content
// (accept), Deny (decline) or Cancel.
const ElicitationTool = "elicitation"

// urlElicit names one URL-mode elicitation of a server.
type urlElicit struct{ server, id string }

// Elicit puts the request to the user of the running conversation as an
// approval of [ElicitationTool]: approving it with [Decision].Content
// accepts with those values, Deny declines, Cancel (or the approval
// expiring) cancels. Accepted form values are checked against the
// requested schema ([tools.ElicitForm.Check]) before they go to the
// server, also when they come through the shared store from another
// replica: values that do not fit, or that are missing, cancel instead, so
// a server never gets an empty or malformed form. A run that cannot ask (no conversation,
// or a non-interactive approver) declines without asking. A requested
// schema outside the specification's subset, or a URL that is not http(s),
// is an error for the server.
func (r *Runtime) Elicit(ctx context.Context, req *tools.ElicitRequest) (*tools.ElicitResult, error) {
	t := r.turnFor(ctx, req.ConversationID, req.Server)
	if t == nil || t.req.Approver != Interactive {
		return &tools.ElicitResult{Action: tools.ElicitDecline}, nil
	}
	var form *tools.ElicitForm
	if req.Mode == "url" {
		if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("elicitation for %q: %q is not an http or https URL; it is not shown to the user", req.Server, req.URL)
		}
	} else {
		var err error
		if form, err = tools.ParseElicitForm(req.Schema); err != nil {
			return nil, fmt.Errorf("elicitation for %q: %w", req.Server, err)
		}
	}
	args, err := json.Marshal(map[string]any{"message": req.Message, "mode": req.Mode, "schema": req.Schema, "url": req.URL, "elicitationId": req.ElicitationID})
	if err != nil {
		return nil, fmt.Errorf("elicitation for %q: encoding the request: %w", req.Server, err)
	}
	agent, _ := t.current()
	key := urlElicit{req.Server, req.ElicitationID}
	d, stored := r.await(ctx, store.Approval{
		ConversationID: t.req.ConversationID, RunID: t.runID, Tool: ElicitationTool, Server: req.Server, Arguments: args,
	}, func(stored store.Approval) {
		if req.Mode == "url" && req.ElicitationID != "" {
			r.mu.Lock()
			if r.urlElicits == nil {
				r.urlElicits = map[urlElicit]string{}
			}
			r.urlElicits[key] = stored.ID
			r.mu.Unlock()
		}
		t.emit(Event{Kind: EventApproval, Agent: agent, Approval: &stored})
	})
	r.mu.Lock()
	if r.urlElicits[key] == stored.ID {
		delete(r.urlElicits, key)
	}
	r.mu.Unlock()
	res := &tools.ElicitResult{Action: tools.ElicitCancel}
	switch stored.State {
	case store.ApprovalApproved:
		res.Action = tools.ElicitAccept
		if form != nil {
			content := r.takeContent(ctx, stored.ID, d.Content)
			res.Content = content
			if why := r.unsendable(form, content); why != "" {
				// why may quote what the person typed: the log says only
				// that the values did not fit.
				logged := tools.ErrElicitContent.Error()
				if content == nil {
					logged = "the form was accepted without its values"
				}
				r.logger.WarnContext(ctx, "elicitation answer not sent; cancelled instead", logKeyServer, req.Server, logKeyErr, logged)
				res = &tools.ElicitResult{Action: tools.ElicitCancel}
				stored.State, stored.Reason = store.ApprovalExpired, why
			}
		}
	case store.ApprovalDenied:
		res.Action = tools.ElicitDecline
	}
	if stored.ID != "" {
		// The event gets its own copy: the MCP client fills the
		// schema's defaults into the returned map while surfaces encode
		// the event.
		shown := *res
		shown.Content = maps.Clone(res.Content)
		t.emit(Event{Kind: EventApprovalResolved, Agent: agent, Approval: &stored, Elicit: &shown})
	}
	return res, nil
}

// takeContent returns the form values approval id was accepted with: those
// handed over in this process (local), else those recorded by the process
// that took the answer. A shared store's copy is cleared either way, so the
// values are kept no longer than this call needs them. The values are never
// logged.
func (r *Runtime) takeContent(ctx context.Context, id string, local map[string]any) map[string]any {
	g, shared := r.approvals.(ApprovalGetter)
	if !shared || id == "" {
		return local
	}
	wctx, cancel := persistCtx(ctx)
	defer cancel()
	raw, err := g.TakeApprovalContent(wctx, id)
	if err != nil {
		r.logger.WarnContext(ctx, "taking the elicitation's form values", logKeyErr, err)
	}
	if local != nil || len(raw) == 0 {
		return local
	}
	var content map[string]any
	if err := json.Unmarshal(raw, &content); err != nil {
		// Not logged with the values: only that they were not an object.
		r.logger.WarnContext(ctx, "the stored form values are not a JSON object; the elicitation is cancelled")
		return nil
	}
	return content
}

// unsendable says why accepted form values must not go to the server,
// "" when they may.
func (r *Runtime) unsendable(form *tools.ElicitForm, content map[string]any) string {
	if content == nil {
		return "the form was accepted without its values; answer it again with the form filled in"
	}
	if err := form.Check(content); err != nil {
		return err.Error()
	}
	return ""
}

// ElicitationComplete is a server's notifications/elicitation/complete:
// the URL-mode elicitation id of server is done, so the question still
// open for it (if any) is answered accept, as the person would on coming
// back from the page.
func (r *Runtime) ElicitationComplete(ctx context.Context, server, id string) {
	r.mu.Lock()
	approvalID, ok := r.urlElicits[urlElicit{server, id}]
	r.mu.Unlock()
	if !ok {
		return
	}
	if err := r.Decide(ctx, approvalID, Decision{Kind: ApproveOnce, By: "server " + server, Reason: "the server reports the interaction complete"}); err != nil {
		r.logger.DebugContext(ctx, "elicitation complete", logKeyServer, server, logKeyErr, err)
	}
}

// cancelReason is what a cancelled approval records.
func cancelReason(d Decision) string {
	reason := "cancelled"
	if d.By != "" {
		reason += " by " + d.By
	}
	if d.Reason != "" {
		reason += ": " + d.Reason
	}
	return reason
}

// cancel ends the pending approval id as expired with reason: a person
// dismissed it (MCP's "cancel").
func (r *Runtime) cancel(ctx context.Context, id, reason string) error {
	ex, ok := r.approvals.(ApprovalExpirer)
	if !ok {
		return fmt.Errorf("cancelling approval %s: this approval store cannot end an approval without a decision", id)
	}
	return ex.ExpireApproval(ctx, id, reason)
}
