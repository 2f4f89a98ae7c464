package store

import (
	"encoding/json"
	"time"
)

// Approval values of an [AuditRecord]: how the call came to be allowed.
const (
	AuditAutoApproved = "auto"         // policy said allow
	AuditApproved     = "approved"     // a person approved it
	AuditDenied       = "denied"       // a person or policy denied it
	AuditExpired      = "expired"      // nobody decided in time
	AuditNotRequired  = "not-required" // the tool needs no approval
	AuditGranted      = "granted"      // a conversation grant covered it
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
	Time           time.Time
	User           string
	ConversationID string
	Agent          string
	RunID          string
	CallID         string
	Tool           string
	Server         string
	Arguments      json.RawMessage
	// Approval is one of the Audit* approval values, or empty.
	Approval string
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
	Approval string
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
