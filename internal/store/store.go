package store

import (
	"context"
	"encoding/json"
	"time"
)

// Store is everything Switchboard persists: one interface per kind of
// record, so that each consumer asks only for the kinds it uses (the agent
// runtime an [AuditLog], the HTTP API [Conversations] and [Agents], ...).
// internal/store/sqlite and internal/store/postgres implement it; both pass
// storetest.Run.
//
// All methods are safe for concurrent use. Errors wrap [ErrNotFound],
// [ErrConflict] or [ErrInvalid] as documented below; any other error is a
// database failure (and includes what was being done). Records returned are
// the caller's to keep. A method that fails writes nothing.
type Store interface {
	Conversations
	Agents
	Approvals
	AuditTrail
	UsageLog
	Users
	Pins
	MCPAnswers
	ConfigEntries
	UserCredentials
	UpstreamAuthStates
	OAuth
	WebSessions
	Identities
	Uploads

	// Close waits for running calls to finish and releases the database.
	// Calls after Close fail. Close is idempotent and safe for concurrent use.
	Close() error
}

// Conversations keeps conversations and their messages.
type Conversations interface {
	// CreateConversation stores c and returns it as stored: ID assigned when
	// empty, CreatedAt set to now when zero, UpdatedAt = CreatedAt.
	// ErrConflict if the ID is taken.
	CreateConversation(ctx context.Context, c Conversation) (Conversation, error)
	// GetConversation returns the conversation with id, or ErrNotFound.
	GetConversation(ctx context.Context, id string) (Conversation, error)
	// ListConversations returns one page of f.User's conversations, most
	// recently updated first (ties broken by ID, descending), and the cursor
	// of the next page ("" after the last page). A conversation updated while
	// the caller pages may appear twice or be skipped; pages are for display.
	// A malformed cursor is ErrInvalid.
	ListConversations(ctx context.Context, f ConversationFilter) (page []Conversation, next string, err error)
	// DeleteConversation deletes the conversation with its messages,
	// approvals and grants (audit and usage records stay). ErrNotFound if
	// there is none.
	DeleteConversation(ctx context.Context, id string) error
	// SetConversationTitle sets the title and UpdatedAt. ErrNotFound if there
	// is no such conversation.
	SetConversationTitle(ctx context.Context, id, title string) error

	// AppendMessages stores msgs at the end of the conversation, all or
	// none, and returns them with ID, ConversationID, Seq and CreatedAt (when
	// zero) set. Seqs are consecutive and follow the conversation's last
	// message even under concurrent appends from several processes.
	// The ConversationID of each message is ignored. ErrNotFound if the
	// conversation does not exist; ErrInvalid when msgs is empty or a role
	// is empty.
	AppendMessages(ctx context.Context, conversationID string, msgs ...Message) ([]Message, error)
	// ListMessages returns the conversation's messages in Seq order.
	// ErrNotFound if the conversation does not exist.
	ListMessages(ctx context.Context, conversationID string, f MessageFilter) ([]Message, error)
}

// Agents keeps the named agents.
type Agents interface {
	// CreateAgent stores a with Version 1 and CreatedAt = UpdatedAt = now,
	// and returns it. ErrConflict if the name is taken.
	CreateAgent(ctx context.Context, a Agent) (Agent, error)
	// GetAgent returns the named agent, or ErrNotFound.
	GetAgent(ctx context.Context, name string) (Agent, error)
	// ListAgents returns every agent ordered by name.
	ListAgents(ctx context.Context) ([]Agent, error)
	// UpdateAgent replaces the named agent's fields with a's (CreatedAt is
	// kept) if a.Version is the stored Version, and returns the agent with
	// Version+1. ErrConflict when a.Version is stale: another writer won, so
	// re-read, re-apply and retry. ErrNotFound if there is no such agent.
	UpdateAgent(ctx context.Context, a Agent) (Agent, error)
	// DeleteAgent deletes the named agent, or returns ErrNotFound.
	DeleteAgent(ctx context.Context, name string) error
	// AssignServer adds server to the agent's Servers (kept sorted, without
	// duplicates) atomically, whatever the agent's Version, and returns the
	// agent. It changes nothing when the server is already assigned or
	// Servers is nil (every server). ErrNotFound if there is no such agent.
	AssignServer(ctx context.Context, agent, server string) (Agent, error)
	// RemoveServer removes server from the agent's Servers atomically and
	// returns the agent; removing an unassigned server changes nothing.
	// ErrConflict when Servers is nil: "every server but one" cannot be
	// expressed, so set an explicit list with UpdateAgent first.
	// ErrNotFound if there is no such agent.
	RemoveServer(ctx context.Context, agent, server string) (Agent, error)
}

// Approvals keeps tool-call approvals and the conversation grants that
// "approve for this conversation" records.
type Approvals interface {
	// CreateApproval stores a pending approval (State, Scope, DecidedBy and
	// DecidedAt are ignored) and returns it with ID and CreatedAt set.
	// ErrNotFound if a.ConversationID names no conversation; ErrConflict if
	// the ID is taken.
	CreateApproval(ctx context.Context, a Approval) (Approval, error)
	// DecideApproval records d on the pending approval id and returns it.
	// Exactly one of several concurrent deciders succeeds; the others get
	// ErrConflict, as does deciding an approval that is no longer pending or
	// whose ExpiresAt has passed. Approving with ScopeConversation an
	// approval that has a conversation also records a [Grant] for that
	// conversation and tool, in the same transaction. ErrNotFound if there is
	// no such approval; ErrInvalid for a decision that is not approved or
	// denied.
	DecideApproval(ctx context.Context, id string, d Decision) (Approval, error)
	// GetApproval returns the approval with id, or ErrNotFound.
	GetApproval(ctx context.Context, id string) (Approval, error)
	// ListPendingApprovals returns the pending approvals f selects, oldest
	// first.
	ListPendingApprovals(ctx context.Context, f ApprovalFilter) ([]Approval, error)
	// ExpirePending marks every approval still pending that was created
	// before the given time as expired, and returns how many. app calls it at
	// start-up with the start time so that approvals a previous process was
	// waiting on show as expired rather than pending forever.
	ExpirePending(ctx context.Context, before time.Time) (int64, error)
	// ExpireApproval marks the pending approval id expired with reason (the
	// run waiting on it ended, or nobody decided in time), so that deciding
	// it later fails with ErrConflict. ErrConflict if it is no longer
	// pending; ErrNotFound if there is no such approval.
	ExpireApproval(ctx context.Context, id, reason string) error
	// TakeApprovalContent returns the Content the approval id was decided
	// with and clears it in the same transaction, so that form values
	// are kept only until the waiting call has them: a second take gets
	// nil. ErrNotFound if there is no such approval.
	TakeApprovalContent(ctx context.Context, id string) (json.RawMessage, error)

	// AddGrant records g (CreatedAt set to now when zero); granting again is
	// not an error. ErrNotFound if the conversation does not exist.
	AddGrant(ctx context.Context, g Grant) error
	// HasGrant reports whether tool is granted in the conversation.
	HasGrant(ctx context.Context, conversationID, tool string) (bool, error)
	// ListGrants returns the conversation's grants ordered by tool.
	ListGrants(ctx context.Context, conversationID string) ([]Grant, error)
}

// AuditLog writes the audit trail: the part every surface that runs tools
// needs. A call is begun before it runs and finished once after.
//
// Both methods bound their own waits, also under a context that never
// ends: the gate calls BeginAudit with one, so that a call whose client
// left is still recorded. The SQL stores do so with the dialect's write
// timeout (30 s on PostgreSQL) and SQLite's busy timeout; on SQLite a
// begin goes to the journal and never waits.
type AuditLog interface {
	// BeginAudit records a call about to run, with Outcome OutcomeRunning,
	// and returns its ID. Call it before running the tool: if the process
	// dies, InterruptRunning marks the record interrupted on the next start.
	BeginAudit(ctx context.Context, rec AuditRecord) (id string, err error)
	// FinishAudit records how the call id ended. ErrNotFound if there is no
	// such record; ErrConflict if it is no longer running (finished twice, or
	// marked interrupted meanwhile).
	FinishAudit(ctx context.Context, id string, res AuditResult) error
}

// AuditTrail is the whole audit trail: writing it, reading it, and marking
// the calls of a stopped process interrupted.
type AuditTrail interface {
	AuditLog

	// InterruptRunning marks as interrupted the records still running that
	// were begun by processes no longer alive, and returns how many. Records
	// of the calling process and, with PostgreSQL, of other live replicas are
	// left alone. app calls it at start-up.
	InterruptRunning(ctx context.Context) (int64, error)
	// ListAudit returns the records f selects, newest first (ties broken by
	// ID, descending). A malformed filter (negative limit, Until before
	// Since) is ErrInvalid.
	ListAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, error)
}

// UsageLog keeps the token usage of agent runs.
type UsageLog interface {
	// RecordUsage stores u. ErrConflict if u.RunID was recorded before;
	// ErrInvalid if it is empty.
	RecordUsage(ctx context.Context, u Usage) error
	// SumUsage totals the usage recorded for a conversation; a conversation
	// without usage (or none at all) gives zero totals.
	SumUsage(ctx context.Context, conversationID string) (UsageTotals, error)
}

// Users keeps the API users and their key hashes.
type Users interface {
	// CreateUser stores u (ID assigned when empty, CreatedAt set to now when
	// zero) and returns it. ErrConflict if the name or key hash is taken.
	CreateUser(ctx context.Context, u User) (User, error)
	// GetUserByName returns the named user, or ErrNotFound.
	GetUserByName(ctx context.Context, name string) (User, error)
	// GetUserByKeyHash returns the user whose KeyHash is keyHash, or
	// ErrNotFound. Disabled users are returned too; the caller refuses them.
	GetUserByKeyHash(ctx context.Context, keyHash string) (User, error)
	// ListUsers returns every user ordered by name.
	ListUsers(ctx context.Context) ([]User, error)
	// DeleteUser deletes the user with id, or returns ErrNotFound.
	DeleteUser(ctx context.Context, id string) error
	// GetUser returns the user with id, or ErrNotFound.
	GetUser(ctx context.Context, id string) (User, error)
	// UpdateUser replaces the Role, Permissions and Disabled of the user
	// with u.ID (name, key and creation time stay) and returns the user as
	// stored. ErrNotFound if there is none; ErrInvalid for an unknown role.
	UpdateUser(ctx context.Context, u User) (User, error)
	// UsersVersion returns a number that changes whenever a user is
	// created, changed or deleted, by this process or any other sharing the
	// database. It is one cheap read, for caches of users to check.
	UsersVersion(ctx context.Context) (int64, error)
}

// Pins keeps the accepted definition of every tool seen (tool pinning).
type Pins interface {
	// CreatePin stores p, first seen (Status PinAccepted, no pending
	// definition; CreatedAt = UpdatedAt = now when zero) and returns it.
	// ErrConflict if the server already has a pin for the tool (another
	// process saw it first: read it with GetPin); ErrInvalid if p is
	// incomplete.
	CreatePin(ctx context.Context, p Pin) (Pin, error)
	// GetPin returns the pin of server's tool, or ErrNotFound.
	GetPin(ctx context.Context, server, tool string) (Pin, error)
	// ListPins returns the pins f selects ordered by server, then tool.
	ListPins(ctx context.Context, f PinFilter) ([]Pin, error)
	// HoldPin records def (with its hash) as the pending definition of
	// server's tool and sets it PinHeld, whatever it was, and returns the
	// pin. ErrNotFound if there is no such pin.
	HoldPin(ctx context.Context, server, tool, hash string, def []byte) (Pin, error)
	// AcceptPin makes the pending definition of a held pin the accepted
	// one, provided its hash is still hash (so an admin accepts the change
	// they saw, not a later one), and returns the pin. ErrConflict if the
	// pin is not held or its pending hash differs; ErrNotFound if there is
	// no such pin.
	AcceptPin(ctx context.Context, server, tool, hash string) (Pin, error)
	// DropPending drops the pending definition of server's tool and sets it
	// PinAccepted again: the server went back to the accepted definition,
	// so there is nothing left to review. It changes nothing on a pin that
	// is not held. ErrNotFound if there is no such pin.
	DropPending(ctx context.Context, server, tool string) error
}
