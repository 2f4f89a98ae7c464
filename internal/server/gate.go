package server

import "github.com/switchboard-mcp/switchboard/internal/gate"

// caller is u as the gate sees it: decided by ID and permission globs.
func (u *User) caller() gate.Caller {
	return gate.Caller{ID: u.ID, Name: u.Name, Permissions: u.Permissions}
}
