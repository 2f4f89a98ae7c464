package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Message is one stored turn of a conversation: an [llm.Message] and the
// agent and run that produced it.
type Message struct {
	llm.Message
	// Agent is the agent that spoke; "" for the assistant and for users.
	Agent string
	RunID string
}

// History keeps conversations. Implementations are safe for concurrent use.
type History interface {
	// Load returns the conversation's messages, oldest first; a
	// conversation that does not exist yet has none.
	Load(ctx context.Context, conversationID string) ([]Message, error)
	// Append adds msgs at the end of the conversation, creating it when
	// needed. The runtime calls it as each message is produced.
	Append(ctx context.Context, conversationID string, msgs ...Message) error
}

// AgentSpec is a named agent: its model, prompt and tool servers.
type AgentSpec struct {
	Name        string
	Description string
	// Model names a configured model; "" means the default model.
	Model  string
	Prompt string
	// Servers are the tool servers the agent may use ("builtin" names the
	// built-in tools). nil means every server; empty, non-nil means none.
	Servers []string
	Router  RouterMode
}

// AgentStore holds the named agents. The runtime reads an agent at the
// start of each of its runs, so changes apply on the agent's next turn.
// Implementations are safe for concurrent use.
type AgentStore interface {
	// Agent returns the named agent and reports whether it exists.
	Agent(ctx context.Context, name string) (AgentSpec, bool, error)
	// Agents returns every agent, ordered by name.
	Agents(ctx context.Context) ([]AgentSpec, error)
	// AssignServer adds server to the agent's servers and returns the agent.
	AssignServer(ctx context.Context, agent, server string) (AgentSpec, error)
	// RemoveServer removes server from the agent's servers and returns the
	// agent.
	RemoveServer(ctx context.Context, agent, server string) (AgentSpec, error)
}

// Approval values of an [AuditRecord]: how a call came to be allowed. They
// are spelled as internal/store spells them.
const (
	ApprovalAuto     = "auto"     // policy allowed it
	ApprovalApproved = "approved" // a person (or --yes) approved it
	ApprovalDenied   = "denied"   // a person or the policy denied it
	ApprovalExpired  = "expired"  // nobody decided in time
	ApprovalGranted  = "granted"  // a conversation grant covered it
)

// Outcome says how a tool call ended, spelled as internal/store spells it.
type Outcome string

const (
	OutcomeOK        Outcome = "ok"
	OutcomeToolError Outcome = "tool_error"
	OutcomeError     Outcome = "error"
	OutcomeDenied    Outcome = "denied"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeTimeout   Outcome = "timeout"
)

// AuditRecord is one tool call, written before it runs.
type AuditRecord struct {
	Time           time.Time
	User           string
	ConversationID string
	Agent          string
	RunID          string
	CallID         string
	// Tool is the catalogue name; Server the origin's server ("builtin"
	// for built-in tools).
	Tool      string
	Server    string
	Arguments json.RawMessage
	// Approval is one of the Approval* values.
	Approval string
}

// AuditResult is how a call ended.
type AuditResult struct {
	Outcome     Outcome
	Error       string
	Duration    time.Duration
	ResultBytes int64
}

// Audit records tool calls. Implementations are safe for concurrent use.
type Audit interface {
	// Begin records a call about to run and returns its record's id.
	Begin(ctx context.Context, rec AuditRecord) (id string, err error)
	// Finish records how the call id ended.
	Finish(ctx context.Context, id string, res AuditResult) error
}

// ApprovalState is where a stored approval stands.
type ApprovalState string

const (
	StatePending  ApprovalState = "pending"
	StateApproved ApprovalState = "approved"
	StateDenied   ApprovalState = "denied"
	StateExpired  ApprovalState = "expired"
)

// Approval is a stored request for a person's decision.
type Approval struct {
	// ID is assigned by [ApprovalStore.CreateApproval] when empty.
	ID             string
	ConversationID string
	RunID          string
	CallID         string
	Tool           string
	Server         string
	Arguments      json.RawMessage
	State          ApprovalState
	// Conversation marks an approval for the rest of the conversation.
	Conversation bool
	Reason       string
	DecidedBy    string
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// ErrNotPending reports a decision on an approval that was decided,
// expired or never existed. ApprovalStore implementations return it
// (wrapped) from DecideApproval.
var ErrNotPending = errors.New("approval is not pending")

// ApprovalStore keeps approvals and conversation grants. Implementations
// are safe for concurrent use.
type ApprovalStore interface {
	// CreateApproval stores a pending approval and returns it with its ID.
	CreateApproval(ctx context.Context, a Approval) (Approval, error)
	// DecideApproval records the decision (State approved or denied,
	// Conversation, Reason, DecidedBy taken from d) on the pending approval
	// id, once: a second decision, or one after ExpiresAt, fails with an
	// error wrapping [ErrNotPending]. An approved Conversation decision
	// also grants the tool for the conversation.
	DecideApproval(ctx context.Context, id string, d Approval) (Approval, error)
	// HasGrant reports whether tool is granted in the conversation.
	HasGrant(ctx context.Context, conversationID, tool string) (bool, error)
}

// ApprovalExpirer is implemented by approval stores that can mark one
// pending approval as expired; the runtime uses it when an approval times
// out, so it stops showing as pending.
type ApprovalExpirer interface {
	ExpireApproval(ctx context.Context, id string) error
}

// ApprovalGetter is implemented by approval stores that several Switchboard
// processes share (PostgreSQL behind a load balancer): a call waiting for
// approval polls it every [ApprovalPollInterval], so a decision recorded
// through another process reaches it. Form values of an elicitation
// decided elsewhere are not carried.
type ApprovalGetter interface {
	GetApproval(ctx context.Context, id string) (Approval, error)
}

// Usage is the token count and router decision of one agent run.
type Usage struct {
	RunID          string
	ConversationID string
	Agent          string
	Model          string
	llm.Usage
	// Router is "tools" or "chat" when the router ran, else "".
	Router     string
	StartedAt  time.Time
	FinishedAt time.Time
}

// UsageRecorder records [Usage]. Implementations are safe for concurrent use.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, u Usage) error
}
