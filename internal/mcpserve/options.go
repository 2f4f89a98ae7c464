package mcpserve

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Caller is who sends MCP requests: the user behind an API key on HTTP, the
// local user on stdio. The gate decides by its ID and Permissions (nil
// Permissions: every tool, the local user only); Name is for messages and
// the audit record.
type Caller = gate.Caller

// Action is what the approval policy says about calling a tool: the
// gate's, spelled as the configuration's approvals section.
type Action = gate.Action

const (
	// ActionAllow calls the tool without asking.
	ActionAllow = gate.ActionAllow
	// ActionAsk asks the caller to confirm each call (MCP elicitation).
	ActionAsk = gate.ActionAsk
	// ActionDeny refuses every call.
	ActionDeny = gate.ActionDeny
)

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

	// Gate is the enforcement path shared with the other surfaces: the
	// caller's permissions and holds (what tools/list shows and
	// tools/call accepts), the per-user tool-call limit, and, when Policy
	// is nil, the approval policy. Nil builds a gate with no limit, the
	// default policy and Permit as a hold.
	Gate *gate.Gate
	// Permit, used only when Gate is nil (as the gate's hold), also
	// decides whether caller may see and call the tool e, after the
	// caller's permission globs. A tool it rejects is
	// neither listed nor callable (a call gets "unknown tool"). Permit must
	// be fast: it runs for every tool on every tools/list.
	Permit func(ctx context.Context, caller Caller, e tools.Entry) bool
	// Policy returns the approval action for the tool e. Nil means the
	// gate's policy (by default: allow read-only tools, ask for every
	// other tool). An unknown Action is treated as [ActionDeny].
	Policy func(e tools.Entry) Action
	// Audit, used only when Gate is nil (as the gate's audit log; with a
	// Gate, the gate's log records), records every call that names a catalogue tool, including
	// refused ones, in the store's vocabulary: User is the caller's Name,
	// Agent "mcp:http" or "mcp:stdio", ConversationID the MCP session ID
	// ("" on stdio). A call that cannot be begun is not made (the client
	// gets a tool error); nil records nothing. A call whose approval question is
	// still open with a client on protocol 2026-07-28 or later (which
	// answers by calling again) is recorded once, in the round that carries
	// the answer; a question never answered leaves no record, since nothing
	// ran.
	Audit store.AuditLog
	// ApprovalTimeout bounds the wait for an answer to an approval
	// question sent with elicitation/create (protocol versions before
	// 2026-07-28, where the call waits for it); 0 means
	// [DefaultApprovalTimeout].
	ApprovalTimeout time.Duration

	// Local is the caller on stdio, where the user who launched the
	// process is the only one; a zero Local means Caller{Name: "local"},
	// who may call every tool.
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
	// SessionTimeout closes HTTP sessions that received no request for
	// this long, so that clients which never send DELETE do not keep
	// sessions (and their goroutines) forever; 0 means
	// [DefaultSessionTimeout], a negative value keeps them until the client
	// ends them or the server closes.
	SessionTimeout time.Duration
	// MaxSessions caps the HTTP sessions one caller may have open at once;
	// a new one past the cap is refused (429) with a message saying how to
	// free one. 0 means [DefaultMaxSessions], a negative value no cap.
	// Stateless requests (protocol 2026-07-28) open no session.
	MaxSessions int
	// SessionKey signs the session IDs handed to clients (HMAC-SHA256 of
	// the ID and the caller). Replicas given the same key continue each
	// other's sessions: a request naming a session another replica created
	// is served on a session re-created from the request (see
	// docs/ARCHITECTURE.md), so no sticky routing is needed. Nil means a
	// random key: sessions stay on the Server that created them.
	SessionKey []byte
	// Answers and Changes, both set on replicas sharing SessionKey and a
	// database, let a session served without sticky routing be asked
	// approval questions on whichever replica serves the call: a client's
	// answer that reaches another replica is stored there and taken by
	// the one waiting (docs/ARCHITECTURE.md). Without them, a call needing
	// a question on a session another replica created is refused.
	Answers store.MCPAnswers
	Changes store.Changes
}

// DefaultSessionTimeout is how long an idle HTTP session lives when
// [Options].SessionTimeout is 0: long enough for a person's pause, short
// enough that abandoned sessions do not pile up.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions is the per-caller session cap when [Options].MaxSessions
// is 0: more than any client keeps open, few enough to bound what one key
// can hold.
const DefaultMaxSessions = 64
