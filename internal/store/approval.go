package store

import (
	"encoding/json"
	"time"
)

// ApprovalState is where an [Approval] stands. Only a pending approval can
// change state, and only once.
type ApprovalState string

const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDenied   ApprovalState = "denied"
	// ApprovalExpired marks an approval nobody decided in time, or one left
	// pending by a process that stopped (see ExpirePending).
	ApprovalExpired ApprovalState = "expired"
)

// ApprovalScope says how far an approval reaches.
type ApprovalScope string

const (
	// ScopeOnce approves this one call.
	ScopeOnce ApprovalScope = "once"
	// ScopeConversation approves this call and records a [Grant] so that
	// later calls of the same tool in the same conversation need no approval.
	ScopeConversation ApprovalScope = "conversation"
)

// Approval is a tool call waiting for (or past) a person's decision.
type Approval struct {
	// ID is assigned by the store when empty.
	ID string
	// ConversationID may be empty for calls made outside a conversation
	// (for example through the MCP gateway).
	ConversationID string
	RunID          string
	// CallID is the model's tool call ID.
	CallID string
	// User is the user who asked, for approvals outside a conversation
	// (the tools API): that user may list and decide it. Empty in a
	// conversation, whose owner decides.
	User      string
	Tool      string
	Server    string
	Arguments json.RawMessage
	State     ApprovalState
	// Scope is set by the decision; empty while pending.
	Scope ApprovalScope
	// Reason is the decider's note, or why the approval expired.
	Reason    string
	DecidedBy string
	// Content is the JSON object of form values an elicitation was
	// accepted with, from the decision until the waiting call takes it
	// (TakeApprovalContent clears it); nil otherwise. It may hold what a
	// person typed, so it is never logged or shown in listings.
	Content   json.RawMessage
	CreatedAt time.Time
	// ExpiresAt, when set, is when the request lapses: DecideApproval then
	// refuses it with ErrConflict.
	ExpiresAt time.Time
	DecidedAt time.Time
}

// Validate reports whether a can be created, as an [ErrInvalid] error.
func (a *Approval) Validate() error {
	if a.Tool == "" {
		return invalidf("approval: tool is empty")
	}
	return nil
}

// Decision is a person's answer to a pending [Approval].
type Decision struct {
	// State is ApprovalApproved or ApprovalDenied.
	State ApprovalState
	// Scope is ScopeOnce or ScopeConversation; empty means ScopeOnce.
	Scope     ApprovalScope
	Reason    string
	DecidedBy string
	// Content is the JSON object of form values accepting an
	// elicitation; only an approval may carry it.
	Content json.RawMessage
}

// Validate reports whether d is a decision the store accepts, as an
// [ErrInvalid] error.
func (d *Decision) Validate() error {
	switch d.State {
	case ApprovalApproved, ApprovalDenied:
	default:
		return invalidf("decision state %q is neither %q nor %q", d.State, ApprovalApproved, ApprovalDenied)
	}
	switch d.Scope {
	case "", ScopeOnce, ScopeConversation:
	default:
		return invalidf("decision scope %q is neither %q nor %q", d.Scope, ScopeOnce, ScopeConversation)
	}
	if len(d.Content) > 0 {
		if d.State != ApprovalApproved {
			return invalidf("decision content comes only with %q, not %q", ApprovalApproved, d.State)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(d.Content, &obj); err != nil || obj == nil {
			return invalidf("decision content is not a JSON object")
		}
	}
	return nil
}

// ApprovalFilter selects pending approvals. Empty fields match everything;
// User matches the user owning the approval's conversation, or the
// approval's own User when it has no conversation.
type ApprovalFilter struct {
	ConversationID string
	User           string
}

// Grant records "approve for this conversation": calls of Tool in
// ConversationID need no further approval. The agent checks it with HasGrant.
type Grant struct {
	ConversationID string
	Tool           string
	// ApprovalID is the approval that created the grant, if any.
	ApprovalID string
	GrantedBy  string
	CreatedAt  time.Time
}
