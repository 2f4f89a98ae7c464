package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

type toolJSON struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description,omitempty"`
	InputSchema  json.RawMessage    `json:"inputSchema"`
	OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
	Annotations  *tools.Annotations `json:"annotations,omitempty"`
	Origin       tools.Origin       `json:"origin"`
}

// listTools lists the catalogue tools the user may call.
func (s *Server) listTools() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		c := u.caller()
		out := []toolJSON{}
		for _, e := range s.tools.List() {
			if !s.gate.Visible(r.Context(), &c, e) {
				continue
			}
			out = append(out, toolJSON{
				Name: e.Name, Title: e.Info.Title, Description: e.Info.Description, InputSchema: e.Info.InputSchema,
				OutputSchema: e.Info.OutputSchema, Annotations: e.Info.Annotations, Origin: e.Origin,
			})
		}
		writeJSON(w, http.StatusOK, list[toolJSON]{Items: out})
		return nil
	}
}

type callBody struct {
	Arguments json.RawMessage `json:"arguments"`
}

// callTimeout bounds one call through the tools API.
const callTimeout = 2 * time.Minute

// callTool calls one tool for the user through the gate's one entry point,
// like every other surface (see [gate.Gate.Call]): a forbidden tool looks
// missing here, as in the list; a tool the policy asks about waits for a
// person's decision on a stored approval, which the user lists at
// /api/v1/approvals and decides there.
func (s *Server) callTool() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		c := u.caller()
		name := r.PathValue("name")
		var body callBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		if len(body.Arguments) == 0 || string(body.Arguments) == "null" {
			body.Arguments = json.RawMessage("{}")
		}
		sf := &gate.Surface{Catalog: s.tools, Timeout: callTimeout, Asking: gate.AskRefuse}
		if asker, ok := s.runner.(Asker); ok {
			sf.Asking, sf.Ask = gate.AskStored, s.askStored(u, asker)
		}
		out := s.gate.Call(r.Context(), sf, &gate.Request{Caller: &c, Name: name, Arguments: body.Arguments})
		if out.Err != nil {
			return callError(r.Context(), name, out)
		}
		writeJSON(w, http.StatusOK, out.Result)
		return nil
	}
}

// callError is the HTTP answer of a call the gate refused or that failed.
func callError(ctx context.Context, name string, out gate.Result) error {
	var ref *gate.Refusal
	if !errors.As(out.Err, &ref) {
		return out.Err // the tool's own error, classified by its sentinel
	}
	switch {
	case errors.Is(ref, gate.ErrUnknownTool), ref.Approval == store.AuditForbidden:
		// A forbidden tool looks like a missing one, as in the list.
		return errorf(http.StatusNotFound, "not_found", "no tool %q you may call; list them at /api/v1/tools", name)
	case errors.Is(ref, tools.ErrHeld):
		return &Error{Status: http.StatusConflict, Code: "held", Msg: ref.Error()}
	case errors.Is(ref, gate.ErrNotRecorded):
		return ref
	case ref.Approval == "":
		return ref // the rate limit
	case ref.Approval == store.AuditDenied:
		return &Error{Status: http.StatusForbidden, Code: "denied_by_policy", Msg: ref.Error()}
	case ref.Approval == store.AuditDeclined:
		return &Error{Status: http.StatusForbidden, Code: "declined", Msg: ref.Error()}
	case ctx.Err() != nil:
		return &Error{Status: 499, Code: "cancelled", Msg: "the client left before the call was approved", Err: ctx.Err()}
	case ref.Approval == store.AuditExpired:
		return &Error{Status: http.StatusForbidden, Code: "approval_expired", Msg: ref.Error()}
	}
	return &Error{Status: http.StatusForbidden, Code: "approval_unavailable", Msg: ref.Error()}
}

// askStored is how the tools API asks: a stored approval that the user
// decides through the approvals API while the call waits.
func (s *Server) askStored(u User, asker Asker) func(context.Context, *gate.Request, tools.Entry) (store.AuditApproval, string) {
	return func(ctx context.Context, req *gate.Request, e tools.Entry) (store.AuditApproval, string) {
		a, err := asker.Ask(ctx, store.Approval{
			User: owner(u), RunID: "api-" + store.NewID(), Tool: e.Name, Server: gate.RuleServer(e), Arguments: req.Arguments,
		})
		switch {
		case err != nil:
			s.logger.WarnContext(ctx, "asking approval", logKeyErr, err)
			return store.AuditUnavailable, fmt.Sprintf("%s was not called: the approval request could not be recorded; try again", e.Name)
		case a.State == store.ApprovalApproved:
			return store.AuditApproved, ""
		case a.State == store.ApprovalDenied:
			msg := fmt.Sprintf("%s was not called: the call was declined", e.Name)
			if a.Reason != "" {
				msg += ": " + a.Reason
			}
			return store.AuditDeclined, msg
		}
		return store.AuditExpired, fmt.Sprintf("%s was not called: nobody decided approval %s in time; call again to ask again", e.Name, a.ID)
	}
}
