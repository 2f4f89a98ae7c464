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

// callTool calls one tool for the user through the gate, like every other
// surface: permission (a forbidden tool looks missing, and is audited as
// forbidden), the user's tool-call limit, the approval policy (a tool the
// policy asks about waits for a person's decision on a stored approval,
// which the user lists at /api/v1/approvals and decides there), and an
// audit record begun before the call and finished after it (even when the
// client leaves).
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
		notFound := errorf(http.StatusNotFound, "not_found", "no tool %q you may call; list them at /api/v1/tools", name)
		e, ok := s.lookupTool(name)
		if !ok {
			return notFound
		}
		ctx := r.Context()
		rec := store.AuditRecord{User: c.AuditUser(), UserID: c.ID, Tool: name, Server: e.Origin.Server, Arguments: body.Arguments}
		if err := s.gate.Admit(ctx, &c, e); err != nil {
			var ref *gate.Refusal
			if errors.As(err, &ref) && ref.Approval == store.AuditForbidden {
				// A forbidden tool looks like a missing one, as in the list.
				s.gate.Refused(ctx, rec, store.AuditForbidden, "the user's permissions do not include this tool")
				return notFound
			}
			return err
		}
		approval, refusal := s.approveCall(ctx, u, e, body.Arguments)
		if refusal != nil {
			s.gate.Refused(ctx, rec, approval, refusal.Msg)
			return refusal
		}
		rec.Approval = approval
		call, err := s.gate.Begin(ctx, rec)
		if err != nil {
			return err // a call that cannot be audited is not made
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		res, callErr := s.tools.Call(cctx, name, &tools.CallRequest{Arguments: body.Arguments})
		cancel()
		d := time.Since(start)
		ar := store.AuditResult{Outcome: store.OutcomeOK, Duration: d}
		switch {
		case errors.Is(callErr, context.Canceled):
			ar.Outcome, ar.Error = store.OutcomeCancelled, "the client left"
		case errors.Is(callErr, context.DeadlineExceeded):
			ar.Outcome, ar.Error = store.OutcomeTimeout, "the call timed out"
		case callErr != nil:
			ar.Outcome, ar.Error = store.OutcomeError, callErr.Error()
		case res.IsError:
			ar.Outcome = store.OutcomeToolError
		}
		if res != nil {
			if b, err := json.Marshal(res); err == nil {
				ar.ResultBytes = int64(len(b))
			}
		}
		call.Finish(ctx, ar)
		s.metrics.ObserveToolCall(name, serverLabel(e), string(ar.Outcome), d)
		if callErr != nil {
			return callErr
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// approveCall applies the approval policy to a call through the tools API.
// It returns how the call was approved, or the error that refuses it with
// the audit label of the refusal.
func (s *Server) approveCall(ctx context.Context, u User, e tools.Entry, args json.RawMessage) (store.AuditApproval, *Error) {
	switch s.gate.Decide(e) {
	case gate.ActionAllow:
		return store.AuditAutoApproved, nil
	case gate.ActionAsk:
	default:
		ref := gate.PolicyRefusal(e)
		return ref.Approval, &Error{Status: http.StatusForbidden, Code: "denied_by_policy", Msg: ref.Error()}
	}
	asker, ok := s.runner.(Asker)
	if !ok {
		return store.AuditUnavailable, errorf(http.StatusForbidden, "approval_unavailable",
			"%s needs a person's approval and this server cannot ask; allow it with an approvals rule", e.Name)
	}
	a, err := asker.Ask(ctx, store.Approval{
		User: owner(u), RunID: "api-" + store.NewID(), Tool: e.Name, Server: gate.RuleServer(e), Arguments: args,
	})
	switch {
	case err != nil:
		return store.AuditUnavailable, &Error{
			Status: http.StatusServiceUnavailable, Code: "approval_unavailable",
			Msg: "the approval request could not be recorded; try again", Err: err,
		}
	case a.State == store.ApprovalApproved:
		return store.AuditApproved, nil
	case a.State == store.ApprovalDenied:
		msg := fmt.Sprintf("%s was not called: the call was declined", e.Name)
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		return store.AuditDeclined, &Error{Status: http.StatusForbidden, Code: "declined", Msg: msg}
	case ctx.Err() != nil:
		return store.AuditExpired, &Error{Status: 499, Code: "cancelled", Msg: "the client left before the call was approved", Err: ctx.Err()}
	}
	return store.AuditExpired, errorf(http.StatusForbidden, "approval_expired",
		"%s was not called: nobody decided approval %s in time; call again to ask again", e.Name, a.ID)
}

func (s *Server) lookupTool(name string) (tools.Entry, bool) {
	if l, ok := s.tools.(interface {
		Lookup(string) (tools.Entry, bool)
	}); ok {
		return l.Lookup(name)
	}
	for _, e := range s.tools.List() {
		if e.Name == name {
			return e, true
		}
	}
	return tools.Entry{}, false
}

// serverLabel is the metrics label of a tool's server.
func serverLabel(e tools.Entry) string {
	if e.Origin.Kind == tools.KindBuiltin {
		return "builtin"
	}
	return e.Origin.Server
}
