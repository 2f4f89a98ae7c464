package server

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/gate"
)

// caller is u as the gate sees it: decided by ID and permission globs.
func (u *User) caller() gate.Caller {
	return gate.Caller{ID: u.ID, Name: u.Name, Permissions: u.Permissions}
}

// runGate returns the permission and rate-limit hooks of an agent run
// started by u: the run's tool calls go through the same gate as the tools
// API, so a run cannot get around the user's permissions or limit.
func (s *Server) runGate(ctx context.Context, u User) (permit func(string) bool, limit func(string) error) {
	c := u.caller()
	permit = func(name string) bool {
		e, ok := s.lookupTool(name)
		if !ok {
			// Not in the catalogue (an agent's own tool): the globs decide.
			return c.Permits(name)
		}
		return s.gate.Visible(ctx, &c, e)
	}
	limit = func(string) error { return s.gate.Limit(ctx, &c) }
	return permit, limit
}
