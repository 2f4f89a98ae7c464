package agent

import (
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// EventKind names the kind of an [Event].
type EventKind string

const (
	// EventText carries the next piece of an agent's answer in Text.
	EventText EventKind = "text"
	// EventReasoning carries the model's visible reasoning in Text.
	EventReasoning EventKind = "reasoning"
	// EventToolStart says a tool call is about to run (Call), after any
	// approval. A call to one of [Request.ClientTools] has Call.Server
	// [ClientServer]: the caller is to run it, and no tool_end follows.
	EventToolStart EventKind = "tool_start"
	// EventToolEnd says how a call ended (Call and Result). Calls that were
	// denied or never ran end here too, without a start.
	EventToolEnd EventKind = "tool_end"
	// EventProgress carries a running call's progress (Call, Progress).
	// Progress events are dropped rather than slow the tool down when the
	// consumer falls behind.
	EventProgress EventKind = "progress"
	// EventApproval asks for a decision (Approval); answer it with
	// [Runtime.Decide].
	EventApproval EventKind = "approval"
	// EventApprovalResolved says how a pending approval ended (Approval,
	// with State, Reason and, when approved, Scope set).
	EventApprovalResolved EventKind = "approval_resolved"
	// EventHandoff says the conversation passes to another agent and back
	// (Handoff).
	EventHandoff EventKind = "handoff"
	// EventRouter reports the router pre-check's decision (Router).
	EventRouter EventKind = "router"
	// EventContext says, in Text, what was shortened or left out of the
	// model request to fit the model's context window (the stored
	// conversation keeps everything).
	EventContext EventKind = "context"
	// EventError reports a limit or failure that ends the turn (Error); a
	// final text for the user follows.
	EventError EventKind = "error"
	// EventDone is the last event of a turn that ended normally or at a
	// limit (Done).
	EventDone EventKind = "done"
)

// Event is one item of a run's stream. Agent names the agent that
// produced it ("" for the assistant); the other fields depend on Kind.
type Event struct {
	Kind     EventKind
	Agent    string
	Text     string
	Call     *CallInfo
	Result   *CallResult
	Progress *tools.Progress
	Approval *store.Approval
	Handoff  *Handoff
	Router   *RouterDecision
	Error    *RunError
	Done     *Done
	// Elicit is the answer an elicitation got (EventApprovalResolved of
	// [ElicitationTool]): the action and, when accepted, the form values
	// sent to the server.
	Elicit *tools.ElicitResult
	// Summary is the summary the model wrote of the earlier conversation
	// (EventContext, when the turn summarised it).
	Summary string
}

// CallInfo identifies one tool call.
type CallInfo struct {
	// ID is the model's call id; Name the catalogue name it called.
	ID   string
	Name string
	// Server is the origin's server ("builtin" for built-ins,
	// [ClientServer] for a client tool, "" for a tool that does not exist).
	Server    string
	Arguments json.RawMessage
}

// CallResult is how a call ended.
type CallResult struct {
	Outcome store.Outcome
	// Text is the result text the model sees.
	Text     string
	IsError  bool
	Duration time.Duration
	// Approval is how the call was allowed or refused.
	Approval store.AuditApproval
}

// Handoff is the conversation passing from one agent to another. Back is
// false when the agent To takes over and true when it has answered.
type Handoff struct {
	From string
	To   string
	Back bool
}

// RouterDecision is the router pre-check's answer.
type RouterDecision struct {
	NeedsTools bool
	// Answer is the model's raw answer, or why the router was skipped
	// ("router failed: ...").
	Answer string
}

// ErrorCode names why a turn ended early.
type ErrorCode string

const (
	CodeToolCallLimit ErrorCode = "tool_call_limit"
	CodeCallTimeout   ErrorCode = "call_timeout"
	CodeTurnTimeout   ErrorCode = "turn_timeout"
	CodeHandoffFailed ErrorCode = "handoff_failed"
)

// RunError is a limit or failure reported to the user.
type RunError struct {
	Code    ErrorCode
	Message string
}

// StopReason says why a turn ended.
type StopReason string

const (
	StopEndTurn StopReason = "end_turn"
	// StopLimit means a limit ended the turn; see the preceding EventError.
	StopLimit StopReason = "limit"
	// StopMaxTokens means the model ran out of output tokens.
	StopMaxTokens StopReason = "max_tokens"
	// StopClientTools means the model called client tools
	// ([Request.ClientTools]); they are in [Done].ClientCalls, for the
	// caller to run and send back as tool results in the next request's
	// Messages. The spelling is OpenAI's finish_reason.
	StopClientTools StopReason = "tool_calls"
)

// ClientServer is the [CallInfo].Server of a call to a client tool.
const ClientServer = "client"

// Done sums up a turn.
type Done struct {
	RunID      string
	StopReason StopReason
	// Usage totals every model call of the turn, router and handoffs included.
	Usage llm.Usage
	// ToolCalls counts the catalogue calls made; client calls are not
	// counted.
	ToolCalls int
	// ClientCalls are the client tool calls the caller must answer, in the
	// model's order, when StopReason is [StopClientTools]; nil otherwise.
	ClientCalls []llm.ToolCall
}
