package web_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// The store adapters below give the agent runtime the store, in the shape
// internal/app wires them (its adapters are unexported).

type history struct{ st *sqlite.DB }

func (h history) Load(ctx context.Context, id string) ([]agent.Message, error) {
	msgs, err := h.st.ListMessages(ctx, id, store.MessageFilter{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	out := make([]agent.Message, len(msgs))
	for i, m := range msgs {
		out[i] = agent.Message{Message: m.Message, Agent: m.Agent, RunID: m.RunID}
	}
	return out, err
}

func (h history) Append(ctx context.Context, id string, msgs ...agent.Message) error {
	in := make([]store.Message, len(msgs))
	for i, m := range msgs {
		in[i] = store.Message{Message: m.Message, Agent: m.Agent, RunID: m.RunID}
	}
	_, err := h.st.AppendMessages(ctx, id, in...)
	return err
}

type audit struct{ st *sqlite.DB }

func (a audit) Begin(ctx context.Context, r agent.AuditRecord) (string, error) {
	return a.st.BeginAudit(ctx, store.AuditRecord{
		Time: r.Time, User: r.User, ConversationID: r.ConversationID, Agent: r.Agent, RunID: r.RunID,
		CallID: r.CallID, Tool: r.Tool, Server: r.Server, Arguments: r.Arguments, Approval: r.Approval,
	})
}

func (a audit) Finish(ctx context.Context, id string, r agent.AuditResult) error {
	return a.st.FinishAudit(ctx, id, store.AuditResult{
		Outcome: store.Outcome(r.Outcome), Error: r.Error, Duration: r.Duration, ResultBytes: r.ResultBytes,
	})
}

type approvals struct{ st *sqlite.DB }

func (a approvals) CreateApproval(ctx context.Context, ap agent.Approval) (agent.Approval, error) {
	got, err := a.st.CreateApproval(ctx, store.Approval{
		ID: ap.ID, ConversationID: ap.ConversationID, RunID: ap.RunID, CallID: ap.CallID, Tool: ap.Tool,
		Server: ap.Server, Arguments: ap.Arguments, State: store.ApprovalPending, CreatedAt: ap.CreatedAt, ExpiresAt: ap.ExpiresAt,
	})
	return toAgentApproval(got), err
}

func (a approvals) DecideApproval(ctx context.Context, id string, d agent.Approval) (agent.Approval, error) {
	dec := store.Decision{State: store.ApprovalState(d.State), Reason: d.Reason, DecidedBy: d.DecidedBy, Scope: store.ScopeOnce}
	if d.Conversation {
		dec.Scope = store.ScopeConversation
	}
	got, err := a.st.DecideApproval(ctx, id, dec)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return agent.Approval{}, fmt.Errorf("%w: %w", agent.ErrNotPending, err)
	}
	return toAgentApproval(got), err
}

func (a approvals) HasGrant(ctx context.Context, conversationID, tool string) (bool, error) {
	return a.st.HasGrant(ctx, conversationID, tool)
}

func toAgentApproval(s store.Approval) agent.Approval {
	return agent.Approval{
		ID: s.ID, ConversationID: s.ConversationID, RunID: s.RunID, CallID: s.CallID, Tool: s.Tool, Server: s.Server,
		Arguments: s.Arguments, State: agent.ApprovalState(s.State), Conversation: s.Scope == store.ScopeConversation,
		Reason: s.Reason, DecidedBy: s.DecidedBy, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt,
	}
}

type agents struct{ st *sqlite.DB }

func (a agents) Agent(ctx context.Context, name string) (agent.AgentSpec, bool, error) {
	ag, err := a.st.GetAgent(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return agent.AgentSpec{}, false, nil
	}
	return toSpec(ag), err == nil, err
}

func (a agents) Agents(ctx context.Context) ([]agent.AgentSpec, error) {
	list, err := a.st.ListAgents(ctx)
	out := make([]agent.AgentSpec, len(list))
	for i, ag := range list {
		out[i] = toSpec(ag)
	}
	return out, err
}

func (a agents) AssignServer(ctx context.Context, name, server string) (agent.AgentSpec, error) {
	ag, err := a.st.AssignServer(ctx, name, server)
	return toSpec(ag), err
}

func (a agents) RemoveServer(ctx context.Context, name, server string) (agent.AgentSpec, error) {
	ag, err := a.st.RemoveServer(ctx, name, server)
	return toSpec(ag), err
}

func toSpec(a store.Agent) agent.AgentSpec {
	return agent.AgentSpec{Name: a.Name, Description: a.Description, Model: a.Model, Prompt: a.Prompt, Servers: a.Servers, Router: agent.RouterMode(a.Router)}
}
