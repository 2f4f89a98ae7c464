package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// The agent declares the small interfaces it needs; these adapters give
// it the store. Each is a thin mapping between the two packages' records.

// history is agent.History on the store.
type history struct{ st store.Store }

func (h history) Load(ctx context.Context, id string) ([]agent.Message, error) {
	msgs, err := h.st.ListMessages(ctx, id, store.MessageFilter{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]agent.Message, len(msgs))
	for i, m := range msgs {
		out[i] = agent.Message{Message: m.Message, Agent: m.Agent, RunID: m.RunID}
	}
	return out, nil
}

func (h history) Append(ctx context.Context, id string, msgs ...agent.Message) error {
	if err := ensureConversation(ctx, h.st, store.Conversation{ID: id}); err != nil {
		return err
	}
	in := make([]store.Message, len(msgs))
	for i, m := range msgs {
		in[i] = store.Message{Message: m.Message, Agent: m.Agent, RunID: m.RunID}
	}
	_, err := h.st.AppendMessages(ctx, id, in...)
	return err
}

// ensureConversation creates c unless a conversation with its ID exists.
// Two processes racing to create it both succeed.
func ensureConversation(ctx context.Context, st store.Store, c store.Conversation) error {
	_, err := st.GetConversation(ctx, c.ID)
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := st.CreateConversation(ctx, c); err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("creating conversation %s: %w", c.ID, err)
	}
	return nil
}

// audit is agent.Audit on the store.
type audit struct{ st store.Store }

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

// approvals is agent.ApprovalStore on the store.
type approvals struct{ st store.Store }

func (a approvals) CreateApproval(ctx context.Context, ap agent.Approval) (agent.Approval, error) {
	if err := ensureConversation(ctx, a.st, store.Conversation{ID: ap.ConversationID}); err != nil {
		return agent.Approval{}, err
	}
	got, err := a.st.CreateApproval(ctx, store.Approval{
		ID: ap.ID, ConversationID: ap.ConversationID, RunID: ap.RunID, CallID: ap.CallID, Tool: ap.Tool,
		Server: ap.Server, Arguments: ap.Arguments, State: store.ApprovalPending, CreatedAt: ap.CreatedAt, ExpiresAt: ap.ExpiresAt,
	})
	if err != nil {
		return agent.Approval{}, err
	}
	return toAgentApproval(got), nil
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
	if err != nil {
		return agent.Approval{}, err
	}
	return toAgentApproval(got), nil
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

// usage is agent.UsageRecorder on the store.
type usage struct{ st store.Store }

func (u usage) RecordUsage(ctx context.Context, x agent.Usage) error {
	return u.st.RecordUsage(ctx, store.Usage{
		RunID: x.RunID, ConversationID: x.ConversationID, Agent: x.Agent, Model: x.Model,
		InputTokens: int64(x.InputTokens), OutputTokens: int64(x.OutputTokens), Router: x.Router,
		StartedAt: x.StartedAt, FinishedAt: x.FinishedAt,
	})
}

// agents is agent.AgentStore on the store.
type agents struct{ st store.Store }

func (a agents) Agent(ctx context.Context, name string) (agent.AgentSpec, bool, error) {
	ag, err := a.st.GetAgent(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return agent.AgentSpec{}, false, nil
	}
	if err != nil {
		return agent.AgentSpec{}, false, err
	}
	return toSpec(ag), true, nil
}

func (a agents) Agents(ctx context.Context) ([]agent.AgentSpec, error) {
	list, err := a.st.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]agent.AgentSpec, len(list))
	for i, ag := range list {
		out[i] = toSpec(ag)
	}
	slices.SortFunc(out, func(x, y agent.AgentSpec) int { return cmpString(x.Name, y.Name) })
	return out, nil
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
	return agent.AgentSpec{
		Name: a.Name, Description: a.Description, Model: a.Model, Prompt: a.Prompt,
		Servers: a.Servers, Router: agent.RouterMode(a.Router),
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// GetApproval implements agent.ApprovalGetter, so a call waiting for an
// approval sees a decision taken through another replica.
func (a approvals) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	got, err := a.st.GetApproval(ctx, id)
	if err != nil {
		return agent.Approval{}, err
	}
	return toAgentApproval(got), nil
}

var (
	_ agent.ApprovalStore  = approvals{}
	_ agent.ApprovalGetter = approvals{}
	_ agent.History        = history{}
	_ agent.Audit          = audit{}
	_ agent.UsageRecorder  = usage{}
	_ agent.AgentStore     = agents{}
)
