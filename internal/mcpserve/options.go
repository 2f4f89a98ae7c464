package mcpserve

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Caller is who sends MCP requests: the user behind an API key on HTTP, the
// local user on stdio. ID is what permissions and audit key on; Name is for
// messages and may be empty.
type Caller struct {
	ID   string
	Name string
}

// Action is what the approval policy says about calling a tool. The
// spelling matches the configuration's approvals section.
type Action string

const (
	// ActionAllow calls the tool without asking.
	ActionAllow Action = "allow"
	// ActionAsk asks the caller to confirm each call (MCP elicitation).
	ActionAsk Action = "ask"
	// ActionDeny refuses every call.
	ActionDeny Action = "deny"
)

// Approval says how a call got past, or was stopped by, the permissions and
// the approval policy. It is recorded in [Outcome].
type Approval string

const (
	// ApprovalNotNeeded: the policy allows the tool.
	ApprovalNotNeeded Approval = "not_needed"
	// ApprovalGranted: the policy asks and the caller accepted.
	ApprovalGranted Approval = "granted"
	// ApprovalDeclined: the policy asks and the caller declined or cancelled.
	ApprovalDeclined Approval = "declined"
	// ApprovalUnavailable: the policy asks but the client cannot be asked
	// (it did not declare elicitation, or the question failed).
	ApprovalUnavailable Approval = "unavailable"
	// ApprovalDenied: the policy denies the tool.
	ApprovalDenied Approval = "denied"
	// ApprovalForbidden: the caller's permissions do not include the tool.
	ApprovalForbidden Approval = "forbidden"
)

// CallRecord describes a call as it starts, for [Auditor.Begin].
type CallRecord struct {
	Caller Caller
	// Tool is the catalogue name; Origin says where the tool lives.
	Tool   string
	Origin tools.Origin
	// Arguments are the arguments as the client sent them (possibly empty).
	Arguments json.RawMessage
	// Transport is "http" or "stdio"; Session is the MCP session ID ("" on stdio).
	Transport string
	Session   string
}

// Outcome describes how a call ended, for [Auditor.Finish].
type Outcome struct {
	Approval Approval
	// Called reports whether the tool itself was called.
	Called bool
	// IsError reports a tool-level error result (including refusals).
	IsError bool
	// Err is the Go error of a call that could not complete (the context
	// ended, the tool's backend is unavailable); nil otherwise.
	Err      error
	Duration time.Duration
}

// Auditor records every call. Implementations are safe for concurrent use.
type Auditor interface {
	// Begin records the start of a call and returns an ID for Finish. An
	// error means the call cannot be audited, and so it is not made: the
	// caller gets a tool error instead.
	Begin(ctx context.Context, rec CallRecord) (id string, err error)
	// Finish records how the call with the given ID ended. It is called
	// exactly once after every successful Begin, also when the client went
	// away (with a context that is no longer cancelled by the request).
	Finish(ctx context.Context, id string, out Outcome)
}

// DefaultApprovalTimeout bounds how long a call waits for the caller's
// answer to an approval question when [Options].ApprovalTimeout is 0.
const DefaultApprovalTimeout = 5 * time.Minute

// Options configures a [Server]. A nil or zero Options means defaults.
type Options struct {
	// Name and Version are the server's implementation info; "" means
	// "switchboard" and "dev".
	Name, Version string
	// Instructions are sent to clients at initialization.
	Instructions string
	// Logger receives lifecycle and diagnostic messages; nil discards them.
	Logger *slog.Logger

	// Permit reports whether caller may see and call the tool e. A tool it
	// rejects is neither listed nor callable (a call gets "unknown tool").
	// Nil permits every tool. Permit must be fast: it runs for every tool
	// on every tools/list.
	Permit func(ctx context.Context, caller Caller, e tools.Entry) bool
	// Policy returns the approval action for the tool e. Nil means the
	// defaults of the configuration: allow read-only tools, ask for every
	// other tool. An unknown Action is treated as [ActionDeny].
	Policy func(e tools.Entry) Action
	// Audit records every call that names a catalogue tool, including
	// refused ones; nil records nothing. A call whose approval question is
	// still open with a client on protocol 2026-07-28 or later (which
	// answers by calling again) is recorded once, in the round that carries
	// the answer; a question never answered leaves no record, since nothing
	// ran.
	Audit Auditor
	// ApprovalTimeout bounds the wait for an answer to an approval
	// question sent with elicitation/create (protocol versions before
	// 2026-07-28, where the call waits for it); 0 means
	// [DefaultApprovalTimeout].
	ApprovalTimeout time.Duration

	// Local is the caller on stdio, where the user who launched the
	// process is the only one; a zero Local means Caller{ID: "local"}.
	Local Caller

	// AllowedHosts are the Host header values (host or host:port) accepted
	// by the HTTP handler besides loopback names and addresses. When the
	// request arrived on a loopback address, any other Host is refused
	// (DNS rebinding protection); on other addresses an empty list accepts
	// every Host.
	AllowedHosts []string
	// AllowedOrigins are the browser origins (scheme://host[:port]) allowed
	// to call the HTTP handler besides the handler's own origin. Requests
	// with another Origin header are refused.
	AllowedOrigins []string
	// SessionTimeout closes HTTP sessions idle for this long; 0 keeps them
	// until the client ends them or the server closes.
	SessionTimeout time.Duration
}

// defaultPolicy is the configuration's default approval policy.
func defaultPolicy(e tools.Entry) Action {
	if e.Info.Annotations.ReadOnly() {
		return ActionAllow
	}
	return ActionAsk
}
