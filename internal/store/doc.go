// Package store defines Switchboard's persistent records and the [Store]
// contract that every database dialect implements: conversations and their
// messages, named agents, tool-call approvals and conversation grants, token
// usage per run, the audit trail of tool calls, and API users.
//
// These records are Switchboard's one vocabulary for what crosses layers:
// the agent runtime, the HTTP API, the MCP gateway and the CLI use
// [Approval], [AuditRecord], [AuditResult], [Outcome], [AuditApproval],
// [Message], [Agent] and [Usage] as they are, with no parallel copies and
// no code that translates between copies. [OutcomeOf] classifies how a
// call that ran ended, the same way for every surface.
//
// The package holds no database code. Dialects live in sub-packages
// (internal/store/sqlite, internal/store/postgres) and import this package;
// internal/store/storetest is the conformance suite both must pass. Only
// internal/app chooses and opens a dialect. [Store] is made of one small
// interface per kind of record ([Conversations], [Agents], [Approvals],
// [AuditLog] and [AuditTrail], [UsageLog], [Users]); a package that
// persists or reads records takes the one it needs, or declares a smaller
// one holding just the methods it calls, so that its tests can use a
// hand-written fake.
//
// Conventions shared by every method:
//
//   - Times are stored in UTC with microsecond precision and come back in UTC.
//     A zero time means "not set" (and, for CreatedAt-style fields passed to a
//     create method, "now").
//   - IDs that the store assigns are UUID version 7 strings ([NewID]), which
//     sort by creation time.
//   - A missing record is [ErrNotFound]; a uniqueness clash, a stale version
//     or a state change that lost a race is [ErrConflict]; input the store
//     refuses before touching the database is [ErrInvalid]. Errors wrap these
//     sentinels, so callers test them with errors.Is.
//   - Every method is safe for concurrent use, including from several
//     processes sharing one PostgreSQL database.
//   - Slices and json.RawMessage values are copied in; the caller may reuse
//     them after the call returns.
package store
