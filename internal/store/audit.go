package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"
)

// AuditApproval says how a call came to be allowed, or what stopped it
// before it ran: the Approval of an [AuditRecord]. Every surface that runs
// tools (agent runs, the tools API, the MCP gateway) records one of these
// values, each with one meaning.
type AuditApproval string

const (
	// AuditAutoApproved: the approval policy allows the tool without asking.
	AuditAutoApproved AuditApproval = "auto"
	// AuditApproved: a person approved the call (or a run started with
	// --yes). The tools API asks too: its caller's request is not an
	// approval.
	AuditApproved AuditApproval = "approved"
	// AuditGranted: a conversation grant ("approve for this conversation")
	// covered the call.
	AuditGranted AuditApproval = "granted"
	// AuditDenied: the approval policy denies the tool, or a run that
	// could not ask (non-interactive) needed approval.
	AuditDenied AuditApproval = "denied"
	// AuditDeclined: a person said no: refused a stored approval (agent
	// runs, the tools API) or answered the MCP gateway's approval question
	// with no, or cancelled it. One word for one event on every surface.
	AuditDeclined AuditApproval = "declined"
	// AuditExpired: nobody decided a stored approval in time.
	AuditExpired AuditApproval = "expired"
	// AuditUnavailable: the policy asks, but nobody could be asked (the
	// MCP client cannot elicit, or the question failed or went unanswered).
	AuditUnavailable AuditApproval = "unavailable"
	// AuditForbidden: the caller's permissions do not include the tool.
	AuditForbidden AuditApproval = "forbidden"

	// Pin events (tool pinning) are records of their own, not calls: Tool
	// and Server name the tool, Arguments carry the definition's hash.
	// AuditPinned: the tool was seen for the first time and pinned.
	AuditPinned AuditApproval = "pinned"
	// AuditHeld: the server changed the tool's definition; it is held.
	AuditHeld AuditApproval = "held"
	// AuditAccepted: an admin (User) accepted the changed definition.
	AuditAccepted AuditApproval = "accepted"
	// AuditAutoAccepted: the server's pinning is auto, so the change was
	// accepted on sight.
	AuditAutoAccepted AuditApproval = "auto_accepted"
)

// Outcome says how a tool call ended.
type Outcome string

const (
	// OutcomeRunning is the state between BeginAudit and FinishAudit.
	OutcomeRunning Outcome = "running"
	OutcomeOK      Outcome = "ok"
	// OutcomeToolError means the tool ran and reported an error result.
	OutcomeToolError Outcome = "tool_error"
	// OutcomeError means the call could not be made (transport, validation).
	OutcomeError     Outcome = "error"
	OutcomeDenied    Outcome = "denied"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeTimeout   Outcome = "timeout"
	// OutcomeInterrupted marks a call whose process stopped before it
	// finished; InterruptRunning sets it at start-up.
	OutcomeInterrupted Outcome = "interrupted"
)

// OutcomeOf classifies a call that ran: err is the Go error of the call
// (nil when the tool answered) and toolError reports an error result. A
// call ended by its context is cancelled or timed out, whatever else
// failed.
func OutcomeOf(err error, toolError bool) Outcome {
	switch {
	case errors.Is(err, context.Canceled):
		return OutcomeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	case err != nil:
		return OutcomeError
	case toolError:
		return OutcomeToolError
	}
	return OutcomeOK
}

// finished reports whether o is an outcome FinishAudit accepts.
func (o Outcome) finished() bool {
	switch o {
	case OutcomeOK, OutcomeToolError, OutcomeError, OutcomeDenied, OutcomeCancelled, OutcomeTimeout:
		return true
	}
	return false
}

// AuditRecord is one tool call: who called which tool with what, and how it
// ended. It is written before the call runs, so a crash leaves a trace.
type AuditRecord struct {
	// ID is assigned by BeginAudit.
	ID string
	// Time is when the call began; BeginAudit sets it to now when zero.
	Time time.Time
	// User is the user's name, for display and filters; UserID is the
	// store's ID of that user, which says who it was even after a rename.
	// Both are empty or "local" for the local user (UserID empty).
	User           string
	UserID         string
	ConversationID string
	Agent          string
	RunID          string
	CallID         string
	Tool           string
	Server         string
	Arguments      json.RawMessage
	// Approval is how the call was allowed or stopped; empty until known.
	Approval AuditApproval
	// Outcome is OutcomeRunning until FinishAudit or InterruptRunning.
	Outcome     Outcome
	Error       string
	DurationMS  int64
	ResultBytes int64
	FinishedAt  time.Time
}

// Validate reports whether r can be begun, as an [ErrInvalid] error.
func (r *AuditRecord) Validate() error {
	if r.Tool == "" {
		return invalidf("audit record: tool is empty")
	}
	return nil
}

// AuditResult is how a call ended, for FinishAudit.
type AuditResult struct {
	// Outcome is any Outcome except OutcomeRunning and OutcomeInterrupted.
	Outcome     Outcome
	Error       string
	Duration    time.Duration
	ResultBytes int64
	// Approval, when not empty, replaces the record's Approval (the decision
	// may come after BeginAudit).
	Approval AuditApproval
}

// Validate reports whether r can finish a record, as an [ErrInvalid] error.
func (r *AuditResult) Validate() error {
	if !r.Outcome.finished() {
		return invalidf("audit outcome %q cannot finish a call", r.Outcome)
	}
	return nil
}

// AuditFilter selects audit records for ListAudit. Empty fields match
// everything.
type AuditFilter struct {
	// Tool is a glob over the tool name: * matches any run of characters,
	// ? one character; matching is case-sensitive. "files__*" selects one
	// server's tools.
	Tool           string
	Server         string
	User           string
	ConversationID string
	// Since and Until bound Time: Since <= Time < Until.
	Since, Until time.Time
	Outcome      Outcome
	// Limit caps the number returned, newest first; zero means 100.
	Limit int
}

// Validate reports whether f is a filter the store accepts, as an
// [ErrInvalid] error.
func (f *AuditFilter) Validate() error {
	if f.Limit < 0 {
		return invalidf("audit filter: negative limit %d", f.Limit)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
		return invalidf("audit filter: until %s is before since %s", f.Until.Format(time.RFC3339), f.Since.Format(time.RFC3339))
	}
	return nil
}

// Match reports whether r is among the records f selects, as a store's
// query would: for records a store holds outside its tables (SQLite's
// journal of calls begun).
func (f *AuditFilter) Match(r *AuditRecord) bool {
	switch {
	case f.Tool != "" && !globMatch(f.Tool, r.Tool),
		f.Server != "" && r.Server != f.Server,
		f.User != "" && r.User != f.User,
		f.ConversationID != "" && r.ConversationID != f.ConversationID,
		!f.Since.IsZero() && r.Time.Before(f.Since),
		!f.Until.IsZero() && !r.Time.Before(f.Until),
		f.Outcome != "" && r.Outcome != f.Outcome:
		return false
	}
	return true
}

// globMatch matches s against the store's glob: * any run of characters,
// ? one character, everything else itself, case-sensitive.
func globMatch(glob, s string) bool {
	// The classic two-pointer walk: on a mismatch, let the last * take one
	// more character. Linear in practice, never exponential.
	gi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case gi < len(glob) && glob[gi] == '*':
			star, mark = gi, si
			gi++
		case gi < len(glob) && (glob[gi] == '?' || glob[gi] == s[si]):
			if glob[gi] == '?' {
				_, n := utf8.DecodeRuneInString(s[si:])
				si += n
			} else {
				si++
			}
			gi++
		case star >= 0:
			_, n := utf8.DecodeRuneInString(s[mark:])
			gi, mark = star+1, mark+n
			si = mark
		default:
			return false
		}
	}
	for gi < len(glob) && glob[gi] == '*' {
		gi++
	}
	return gi == len(glob)
}
