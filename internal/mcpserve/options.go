package mcpserve

import (
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
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

	// Features, when set, serves the upstream servers' prompts and
	// resources (features.go) beside the catalogue's tools; nil serves
	// tools only and advertises neither capability.
	Features Features
}

// DefaultSessionTimeout is how long an idle HTTP session lives when
// [Options].SessionTimeout is 0: long enough for a person's pause, short
// enough that abandoned sessions do not pile up.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions is the per-caller session cap when [Options].MaxSessions
// is 0: more than any client keeps open, few enough to bound what one key
// can hold.
const DefaultMaxSessions = 64
