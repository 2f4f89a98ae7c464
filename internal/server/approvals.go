package server

import (
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
		as, err := s.store.ListPendingApprovals(r.Context(), f)
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
		d := agent.Decision{Reason: body.Reason, By: u.Name}
		switch body.Decision {
		case decideApprove:
			d.Kind = agent.ApproveOnce
		case decideApproveConversation:
			d.Kind = agent.ApproveConversation
		case decideDeny:
			d.Kind = agent.Deny
		default:
			return badRequest("decision %q is not one of %q, %q, %q", body.Decision, decideApprove, decideApproveConversation, decideDeny)
		}
		id := r.PathValue("id")
		a, err := s.store.GetApproval(r.Context(), id)
		if err != nil {
			return notFoundAs(err, "no approval %q", id)
		}
		if a.ConversationID != "" {
			if _, err := s.conversation(r.Context(), u, a.ConversationID); err != nil {
				return notFoundAs(err, "no approval %q", id)
			}
		} else if !u.Anonymous {
			// Approvals outside conversations (the gateway's) are the local
			// user's to decide.
			return errorf(http.StatusNotFound, "not_found", "no approval %q", id)
		}
		if err := s.runner.Decide(r.Context(), id, d); err != nil {
			return err
		}
		if a, err = s.store.GetApproval(r.Context(), id); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, toApproval(a))
		return nil
	}
}
