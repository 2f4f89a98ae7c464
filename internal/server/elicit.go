package server

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Answers to an elicitation (an approval of [agent.ElicitationTool]) at
// POST /api/v1/approvals/{id}: MCP's three actions.
const (
	elicitAccept  = "accept"
	elicitDecline = "decline"
	elicitCancel  = "cancel"
)

// elicitDecision turns the answer body to the elicitation a into the
// runtime's decision. Accepted form values are checked against the
// requested schema here, before anything is recorded: values that do not
// fit are refused (422) and the question stays open, so the person can
// correct them.
func elicitDecision(a store.Approval, body decideBody, by string) (agent.Decision, error) {
	d := agent.Decision{Reason: body.Reason, By: by}
	switch body.Decision {
	case elicitAccept, decideApprove:
		d.Kind = agent.ApproveOnce
	case elicitDecline, decideDeny:
		d.Kind = agent.Deny
	case elicitCancel:
		d.Kind = agent.Cancel
	default:
		return d, badRequest("an elicitation is answered %q, %q or %q, not %q", elicitAccept, elicitDecline, elicitCancel, body.Decision)
	}
	if d.Kind != agent.ApproveOnce {
		if body.Content != nil {
			return d, badRequest("content goes with %q only; a %s sends the server no values", elicitAccept, body.Decision)
		}
		return d, nil
	}
	var req struct {
		Mode   string          `json:"mode"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(a.Arguments, &req); err != nil {
		return d, err
	}
	if req.Mode == "url" {
		if body.Content != nil {
			return d, badRequest("a URL elicitation is accepted without content; the page the server sent collects it")
		}
		return d, nil
	}
	form, err := tools.ParseElicitForm(req.Schema)
	if err != nil {
		return d, err
	}
	content := body.Content
	if content == nil {
		content = map[string]any{}
	}
	if err := form.Check(content); err != nil {
		if errors.Is(err, tools.ErrElicitContent) {
			return d, errorf(http.StatusUnprocessableEntity, "invalid_content", "%s; nothing was sent to %s, correct the values and answer again", err, a.Server)
		}
		return d, err
	}
	d.Content = content
	return d, nil
}
