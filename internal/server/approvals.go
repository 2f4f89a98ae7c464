package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// listApprovals lists the pending approvals of the user's conversations,
// oldest first; ?conversation=ID narrows it to one conversation.
func (s *Server) listApprovals() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		f := store.ApprovalFilter{ConversationID: r.URL.Query().Get("conversation"), User: owner(u)}
		if f.ConversationID != "" {
			if _, err := s.conversation(r.Context(), u, f.ConversationID); err != nil {
				return err
			}
		}
		as, err := s.store.Approvals.ListPendingApprovals(r.Context(), f)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list[approvalJSON]{Items: mapSlice(as, toApproval)})
		return nil
	}
}

// Decisions accepted by POST /api/v1/approvals/{id}.
const (
	decideApprove             = "approve"
	decideApproveConversation = "approve_conversation"
	decideDeny                = "deny"
)

type decideBody struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// Content is the form values of an accepted elicitation.
	Content map[string]any `json:"content"`
}

// decideApproval answers a pending approval of one of the user's
// conversations and returns the approval as stored afterwards.
func (s *Server) decideApproval() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		var body decideBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		switch body.Decision {
		case decideApprove, decideApproveConversation, decideDeny, elicitAccept, elicitDecline, elicitCancel:
		default:
			return badRequest("decision %q is not one of %q, %q, %q (or, for an elicitation, %q, %q, %q)", body.Decision,
				decideApprove, decideApproveConversation, decideDeny, elicitAccept, elicitDecline, elicitCancel)
		}
		id := r.PathValue("id")
		a, err := s.store.Approvals.GetApproval(r.Context(), id)
		if err != nil {
			return notFoundAs(err, "no approval %q", id)
		}
		if a.ConversationID != "" {
			if _, err := s.conversation(r.Context(), u, a.ConversationID); err != nil {
				return notFoundAs(err, "no approval %q", id)
			}
		} else if !u.Anonymous && (a.User == "" || a.User != u.Name) {
			// Approvals outside conversations are the asking user's (the
			// tools API) or the local user's (the gateway's) to decide.
			return errorf(http.StatusNotFound, "not_found", "no approval %q", id)
		}
		if a.State != store.ApprovalPending {
			return notPending(a)
		}
		d := agent.Decision{Reason: body.Reason, By: u.Name}
		switch {
		case a.Tool == agent.ElicitationTool:
			if d, err = elicitDecision(a, body, u.Name); err != nil {
				return err
			}
		case body.Content != nil:
			return badRequest("content answers an elicitation; approval %s is a call of %s", id, a.Tool)
		case body.Decision == decideApprove:
			d.Kind = agent.ApproveOnce
		case body.Decision == decideApproveConversation:
			d.Kind = agent.ApproveConversation
		case body.Decision == decideDeny:
			d.Kind = agent.Deny
		default:
			return badRequest("decision %q is not one of %q, %q, %q", body.Decision, decideApprove, decideApproveConversation, decideDeny)
		}
		if err := s.runner.Decide(r.Context(), id, d); err != nil {
			if errors.Is(err, agent.ErrNotPending) {
				if now, gerr := s.store.Approvals.GetApproval(r.Context(), id); gerr == nil && now.State != store.ApprovalPending {
					return notPending(now)
				}
			}
			return err
		}
		if a, err = s.store.Approvals.GetApproval(r.Context(), id); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, toApproval(a))
		return nil
	}
}

// notPending is the 409 for deciding approval a, which is no longer
// pending: it says what became of it and why, so the person knows the call
// was not (or was already) made.
func notPending(a store.Approval) *Error {
	var msg string
	switch a.State {
	case store.ApprovalExpired:
		msg = fmt.Sprintf("approval %s has expired and can no longer be decided: the call of %s was not made", a.ID, a.Tool)
		if a.Reason != "" {
			msg += " (" + a.Reason + ")"
		}
		msg += "; ask for it again to get a new approval"
	default:
		msg = fmt.Sprintf("approval %s was already decided (%s", a.ID, a.State)
		if a.DecidedBy != "" {
			msg += " by " + a.DecidedBy
		}
		msg += ")"
	}
	return &Error{Status: http.StatusConflict, Code: "not_pending", Msg: msg}
}
