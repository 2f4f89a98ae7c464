package server

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools/pin"
)

// Pins reviews and accepts held tools (tool pinning; see package pin).
// app implements it; nil makes the routes answer 404.
type Pins interface {
	// Changes lists the held tools with their diffs.
	Changes(ctx context.Context) ([]pin.Change, error)
	// Accept accepts the selected changes for user by, releases the tools,
	// and returns what it accepted (see [pin.Accept] for the errors).
	Accept(ctx context.Context, sel pin.Selection, by string) ([]pin.Change, error)
}

// mayAcceptTools reports whether u may review and accept tool changes: an
// admin's decision. Until users have an admin role, a user who may use
// every tool (the anonymous local user, or permissions including "*")
// counts as one.
// TODO(#10): check the admin role once users have one.
func mayAcceptTools(u User) bool {
	return u.Permissions == nil || slices.Contains(u.Permissions, "*")
}

func (s *Server) pinsFor(r *http.Request) (Pins, error) {
	if s.opts.Pins == nil {
		return nil, errorf(http.StatusNotFound, "not_found", "tool pinning is not enabled on this server")
	}
	if !mayAcceptTools(mustUser(r)) {
		return nil, errorf(http.StatusForbidden, "forbidden", "only an admin may review and accept tool changes")
	}
	return s.opts.Pins, nil
}

// listToolChanges lists the held tools with their diffs.
func (s *Server) listToolChanges() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.pinsFor(r)
		if err != nil {
			return err
		}
		changes, err := p.Changes(r.Context())
		if err != nil {
			return err
		}
		if changes == nil {
			changes = []pin.Change{}
		}
		writeJSON(w, http.StatusOK, list[pin.Change]{Items: changes})
		return nil
	}
}

type acceptBody struct {
	Names  []string `json:"names"`
	Server string   `json:"server"`
	All    bool     `json:"all"`
	// Hashes maps a name to the pending hash the admin reviewed.
	Hashes map[string]string `json:"hashes"`
}

// acceptToolChanges accepts the held tools the body selects.
func (s *Server) acceptToolChanges() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.pinsFor(r)
		if err != nil {
			return err
		}
		var body acceptBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		if len(body.Names) == 0 && body.Server == "" && !body.All {
			return errorf(http.StatusBadRequest, "invalid_request", "say what to accept: names, server or all")
		}
		u := mustUser(r)
		done, err := p.Accept(r.Context(), pin.Selection{Names: body.Names, Server: body.Server, All: body.All, Hashes: body.Hashes}, u.Name)
		switch {
		case errors.Is(err, pin.ErrNotHeld):
			return errorf(http.StatusNotFound, "not_held", "%v", err)
		case errors.Is(err, store.ErrConflict):
			return errorf(http.StatusConflict, "changed_again", "the tool changed again since it was listed; list the changes and review the new diff")
		case err != nil:
			return err
		}
		if done == nil {
			done = []pin.Change{}
		}
		writeJSON(w, http.StatusOK, list[pin.Change]{Items: done})
		return nil
	}
}
