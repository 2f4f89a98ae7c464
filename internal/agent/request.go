package agent

import (
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

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
//
// A run is stateful (Messages nil: the conversation lives in History) or
// stateless (Messages set: the caller holds the conversation, as an
// OpenAI-compatible client does, and nothing is stored in History).
type Request struct {
	// ConversationID names the conversation; required. In a stateless run
	// it only labels audit records, usage and approvals, so a generated id
	// is fine.
	ConversationID string
	// User is who sent the message (for audit); "" for single-user use.
	User string
	// UserID is the store ID of the user the run acts for, recorded in
	// the audit trail beside User; empty for the local user.
	UserID string
	// Role is the role of the user the run acts for. The management tools
	// that change what every user runs (assign_server, remove_server) run
	// only when it [store.Role.ManagesShared], as the REST API's routes
	// for the same changes require; otherwise they are refused with a tool
	// error, whoever approves the call. The zero value may not: a surface
	// that sets no role gets no such power. The local user at the terminal
	// is an admin.
	Role store.Role
	// Agent is the agent spoken to; "" means the default assistant, which
	// hands messages that mention a named agent to that agent.
	Agent string
	// Message is the user's text. A stateful run requires it and appends
	// it to History. In a stateless run the new user message is already
	// the last of Messages, so Message must be "" or repeat that
	// message's text; it is "" when Messages ends with tool results.
	Message string
	// Attachments are further parts of the user's message in a stateful
	// run, stored with Message and sent to the model after its text:
	// images the person attached (llm.PartImage with MIMEType and Data).
	// A stateless run carries them in Messages instead.
	Attachments []llm.Part
	// Prelude are messages stored before Message in a stateful run, in
	// order: the earlier messages of an MCP prompt the person ran, whose
	// last user message is Message. Their roles are user or assistant.
	Prelude []llm.Message
	// Model overrides the agent's model for this turn; "" keeps it.
	Model    string
	Approver Approver
	// RunID identifies the run in history, audit and usage; "" means a new
	// random id.
	RunID string

	// Permissions are the caller's tool-name globs, as [gate.Caller] has
	// them: tools they do not cover (catalogue and management tools alike)
	// are neither offered to the model nor callable, for every agent of
	// the run, and a call to one is answered like a call to a tool that
	// does not exist. Nil means every tool (the local user). The run's
	// tool calls go through the gate as this caller (User, UserID,
	// Permissions), so its rate limit is the user's on every surface.
	Permissions []string
	// Messages, when not nil, makes the run stateless: it is the whole
	// conversation so far, oldest first, ending with the new user message
	// or with the results of client tool calls. The runtime uses it instead
	// of History (which it neither reads nor writes) and does not modify
	// it. Its assistant and tool messages count as the request's Agent's.
	Messages []llm.Message
	// ClientTools are tools the caller runs itself, offered to the
	// request's Agent next to the catalogue's (not to agents it hands off
	// to). They need a stateless run, since only Messages can carry their
	// results back. Names must be unique and must not be the name of a
	// permitted catalogue or management tool. A model step that calls any
	// of them ends the run: see [StopClientTools].
	ClientTools []llm.ToolSpec
}

// stateless reports whether the caller holds the conversation.
func (req *Request) stateless() bool { return req.Messages != nil }

// ErrInvalidRequest is wrapped by the errors a [Runtime.Run] sequence
// yields for a request it cannot run as given (a missing field, a
// malformed stateless conversation, a client tool named like a catalogue
// tool). Nothing was run or stored; the caller should fix the request (an
// HTTP server answers 400).
var ErrInvalidRequest = errors.New("invalid agent request")

// requestError is a bad request; it matches [ErrInvalidRequest] while
// keeping its own message.
type requestError struct{ msg string }

func (e *requestError) Error() string        { return e.msg }
func (e *requestError) Is(target error) bool { return target == ErrInvalidRequest }

func invalid(format string, args ...any) error {
	return &requestError{msg: "running agent: " + fmt.Sprintf(format, args...)}
}

func (req *Request) validate() error {
	switch {
	case req == nil:
		return invalid("no request")
	case req.ConversationID == "":
		return invalid("conversation id is empty; give every turn the id of its conversation")
	case len(req.Prelude) > 0 && req.stateless():
		return invalid("a prelude is set in a stateless run; put its messages in messages")
	case len(req.Attachments) > 0 && req.stateless():
		return invalid("attachments are set in a stateless run; put them in the last user message of messages")
	case req.stateless():
		if err := req.validateMessages(); err != nil {
			return err
		}
	case req.Message == "":
		return invalid("message is empty; nothing to answer")
	case len(req.ClientTools) > 0:
		return invalid("client tools need a stateless run: their results can only come back in Messages")
	}
	seen := make(map[string]bool, len(req.ClientTools))
	for i, s := range req.ClientTools {
		switch {
		case s.Name == "":
			return invalid("client tool %d has no name", i)
		case seen[s.Name]:
			return invalid("client tool %q is given twice; tool names must be unique", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// validateMessages checks a stateless conversation: it must end with
// something to answer, and Message may only repeat what it ends with.
func (req *Request) validateMessages() error {
	if len(req.Messages) == 0 {
		return invalid("messages is empty; a stateless run needs the conversation, ending with a user message or tool results")
	}
	last := req.Messages[len(req.Messages)-1]
	switch last.Role {
	case llm.RoleUser:
		if req.Message != "" && req.Message != last.Text() {
			return invalid("message differs from the last user message; in a stateless run put the new user message at the end of messages and leave message empty")
		}
	case llm.RoleTool:
		if req.Message != "" {
			return invalid("message is set but the conversation ends with tool results; leave message empty or end messages with the user message")
		}
	default:
		return invalid("the conversation ends with a %q message; nothing to answer (end it with a user message or tool results)", last.Role)
	}
	return nil
}

// input returns the new user text of the turn: Message, or in a stateless
// run the last message when it is the user's ("" after tool results).
func (req *Request) input() string {
	if !req.stateless() {
		return req.Message
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleUser {
		return last.Text()
	}
	return ""
}

// DecisionKind is a person's answer to an approval.
type DecisionKind int

const (
	// ApproveOnce approves this one call.
	ApproveOnce DecisionKind = iota + 1
	// ApproveConversation approves this call and later calls of the same
	// tool in the same conversation.
	ApproveConversation
	// Deny refuses the call; Reason is passed to the model. For an
	// elicitation it is the person's "decline".
	Deny
	// Cancel dismisses an elicitation without answering it (MCP's
	// "cancel"); the approval ends expired, with Reason. For a tool call
	// it counts as the approval expiring.
	Cancel
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

// caller is who makes the run's tool calls, as the gate sees them.
func (req *Request) caller() gate.Caller {
	return gate.Caller{ID: req.UserID, Name: req.User, Permissions: req.Permissions}
}
