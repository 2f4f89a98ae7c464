package agent

import "fmt"

// Approver says how the approvals of one run are answered.
type Approver int

const (
	// Interactive (the zero value) asks: an [EventApproval] is yielded and
	// the call waits for [Runtime.Decide] or the approval timeout.
	Interactive Approver = iota
	// AutoApprove approves every call the policy would ask about
	// (`switchboard chat -p --yes`). Calls the policy denies stay denied.
	AutoApprove
	// AutoDeny denies every call the policy would ask about, telling the
	// model that approval is not available.
	AutoDeny
)

// Request is one user turn.
type Request struct {
	// ConversationID names the conversation; required.
	ConversationID string
	// User is who sent the message (for audit); "" for single-user use.
	User string
	// Agent is the agent spoken to; "" means the default assistant, which
	// hands messages that mention a named agent to that agent.
	Agent string
	// Message is the user's text; required.
	Message string
	// Model overrides the agent's model for this turn; "" keeps it.
	Model    string
	Approver Approver
	// RunID identifies the run in history, audit and usage; "" means a new
	// random id.
	RunID string
}

func (req *Request) validate() error {
	switch {
	case req == nil:
		return fmt.Errorf("running agent: no request")
	case req.ConversationID == "":
		return fmt.Errorf("running agent: conversation id is empty; give every turn the id of its conversation")
	case req.Message == "":
		return fmt.Errorf("running agent: message is empty; nothing to answer")
	}
	return nil
}

// DecisionKind is a person's answer to an approval.
type DecisionKind int

const (
	// ApproveOnce approves this one call.
	ApproveOnce DecisionKind = iota + 1
	// ApproveConversation approves this call and later calls of the same
	// tool in the same conversation.
	ApproveConversation
	// Deny refuses the call; Reason is passed to the model.
	Deny
)

// Decision answers a pending approval.
type Decision struct {
	Kind   DecisionKind
	Reason string
	// By names who decided, for the record.
	By string
	// Content carries the user's answer to an elicitation (form values)
	// when Kind approves it.
	Content map[string]any
}
