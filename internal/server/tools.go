package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

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
		out := []toolJSON{}
		for _, e := range s.tools.List() {
			if !u.Permits(e.Name) {
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

// callTool calls one tool for the user: permission check, the per-user
// tool-call limit, an audit record begun before the call and finished
// after it (even when the client leaves), and metrics. The caller asked for
// this exact call, so no approval is asked: the audit says "approved" by
// the user.
func (s *Server) callTool() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		name := r.PathValue("name")
		var body callBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		e, ok := s.lookupTool(name)
		if !ok || !u.Permits(name) {
			// A forbidden tool looks like a missing one, as in the list.
			return errorf(http.StatusNotFound, "not_found", "no tool %q you may call; list them at /api/v1/tools", name)
		}
		if err := s.toolLimits.Allow(r.Context(), u.Name, "tool calls"); err != nil {
			return err
		}
		if len(body.Arguments) == 0 || string(body.Arguments) == "null" {
			body.Arguments = json.RawMessage("{}")
		}
		ctx := r.Context()
		id, err := s.store.BeginAudit(ctx, store.AuditRecord{
			User: u.Name, Tool: name, Server: e.Origin.Server, Arguments: body.Arguments, Approval: store.AuditApproved,
		})
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
		// The record completes even when the client is gone.
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer wcancel()
		if err := s.store.FinishAudit(wctx, id, ar); err != nil {
			s.log(ctx).WarnContext(ctx, "finishing audit record", logKeyErr, err)
		}
		s.metrics.ObserveToolCall(name, serverLabel(e), string(ar.Outcome), d)
		if callErr != nil {
			return callErr
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
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
