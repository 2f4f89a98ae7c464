package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// The runtime keeps its records in internal/store's types and asks for
// each kind of record through the small interface below holding only the
// methods it calls. internal/app passes its store; tests pass hand-written
// fakes. Every implementation is safe for concurrent use and returns the
// errors [store.Store] documents.

// History keeps conversations.
type History interface {
	// ListMessages returns the conversation's messages, oldest first;
	// [store.ErrNotFound] for a conversation that does not exist yet counts
	// as none.
	ListMessages(ctx context.Context, conversationID string, f store.MessageFilter) ([]store.Message, error)
	// AppendMessages adds msgs at the end of the conversation. The runtime
	// calls it as each message is produced, starting with the user's
	// message, so the conversation must exist or be created by the call.
	AppendMessages(ctx context.Context, conversationID string, msgs ...store.Message) ([]store.Message, error)
}

// Agents holds the named agents. The runtime reads an agent at the start of
// each of its runs, so changes apply on the agent's next turn.
type Agents interface {
	// GetAgent returns the named agent, or an error wrapping
	// [store.ErrNotFound].
	GetAgent(ctx context.Context, name string) (store.Agent, error)
	// ListAgents returns every agent, ordered by name.
	ListAgents(ctx context.Context) ([]store.Agent, error)
	AssignServer(ctx context.Context, agent, server string) (store.Agent, error)
	RemoveServer(ctx context.Context, agent, server string) (store.Agent, error)
}

// Approvals keeps approvals and conversation grants.
type Approvals interface {
	// CreateApproval stores a pending approval and returns it with its ID.
	CreateApproval(ctx context.Context, a store.Approval) (store.Approval, error)
	// DecideApproval records d on the pending approval id, once: a second
	// decision, or one after ExpiresAt, fails with [store.ErrConflict]. An
	// approval for the conversation also grants the tool there.
	DecideApproval(ctx context.Context, id string, d store.Decision) (store.Approval, error)
	// HasGrant reports whether tool is granted in the conversation.
	HasGrant(ctx context.Context, conversationID, tool string) (bool, error)
}

// ApprovalExpirer is implemented by approval stores that can mark one
// pending approval as expired with a reason; the runtime uses it when an
// approval times out or its run ends (finished, cancelled, client gone),
// so it stops showing as pending and deciding it fails. The store
// implements it.
type ApprovalExpirer interface {
	ExpireApproval(ctx context.Context, id, reason string) error
}

// ApprovalGetter is implemented by approval stores that several Switchboard
// processes share (PostgreSQL behind a load balancer), so that a decision
// recorded through another process reaches the call waiting for it: the
// call re-reads the approval when the store's change feed
// ([store.Changes]) says it changed, or every [ApprovalPollInterval] if
// the store has no feed. The form values an elicitation is accepted with
// travel in the store too (the approval's Content): the waiting call takes
// them with TakeApprovalContent, which clears them, and checks them
// against the requested schema again before they go to the server.
type ApprovalGetter interface {
	GetApproval(ctx context.Context, id string) (store.Approval, error)
	// TakeApprovalContent returns the form values approval id was
	// accepted with and clears them; nil once taken or when there were
	// none.
	TakeApprovalContent(ctx context.Context, id string) (json.RawMessage, error)
}

// UsageRecorder records the token usage of each agent run.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, u store.Usage) error
}

// ErrNotPending reports a decision on an approval that was decided,
// expired or never existed: [Runtime.Decide] wraps it around the store's
// [store.ErrConflict] or [store.ErrNotFound].
var ErrNotPending = errors.New("approval is not pending")

var (
	_ History         = store.Store(nil)
	_ Agents          = store.Store(nil)
	_ Approvals       = store.Store(nil)
	_ UsageRecorder   = store.Store(nil)
	_ ApprovalExpirer = store.Store(nil)
	_ ApprovalGetter  = store.Store(nil)
)
