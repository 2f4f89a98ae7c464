package app

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// The records the command line shows, as the store defines them (aliases,
// not copies), so that commands ask the app for them without reaching the
// store themselves.
type (
	// Agent is a stored agent.
	Agent = store.Agent
	// User is a stored user.
	User = store.User
	// AuditRecord is one tool call in the audit trail.
	AuditRecord = store.AuditRecord
	// AuditFilter selects audit records.
	AuditFilter = store.AuditFilter
	// Outcome is how an audited call ended.
	Outcome = store.Outcome
)

// SourceRuntime marks an agent created at run time, not from the file.
const SourceRuntime = store.SourceRuntime

// IsNotFound reports whether err says a named record does not exist.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// IsRefused reports whether err says a write was refused as it stands
// (a name in use, an invalid value): the person must change the request.
func IsRefused(err error) bool {
	return errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrInvalid)
}

// agents opens the store for an agent command.
func (a *App) agents(ctx context.Context) (store.Agents, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// AddAgent creates ag as an agent of run time (`agents add`).
func (a *App) AddAgent(ctx context.Context, ag Agent) (Agent, error) {
	st, err := a.agents(ctx)
	if err != nil {
		return Agent{}, err
	}
	ag.Source = store.SourceRuntime
	return st.CreateAgent(ctx, ag)
}

// DeleteAgent deletes the named agent.
func (a *App) DeleteAgent(ctx context.Context, name string) error {
	st, err := a.agents(ctx)
	if err != nil {
		return err
	}
	return st.DeleteAgent(ctx, name)
}

// AssignServer lets the agent use the server's tools.
func (a *App) AssignServer(ctx context.Context, agent, server string) error {
	st, err := a.agents(ctx)
	if err != nil {
		return err
	}
	_, err = st.AssignServer(ctx, agent, server)
	return err
}

// RemoveServer takes the server's tools away from the agent.
func (a *App) RemoveServer(ctx context.Context, agent, server string) error {
	st, err := a.agents(ctx)
	if err != nil {
		return err
	}
	_, err = st.RemoveServer(ctx, agent, server)
	return err
}

// Audit lists the audit records f selects, newest first.
func (a *App) Audit(ctx context.Context, f AuditFilter) ([]AuditRecord, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListAudit(ctx, f)
}
