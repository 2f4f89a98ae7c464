// Package sqlstore is the store.Store implementation shared by the SQL
// dialects: every query, written once with '?' placeholders over
// database/sql, and the encoding of rows. A [Dialect] supplies what differs
// between databases (placeholder rewriting, how times and tool arguments
// are stored, error codes, tool-name matching, row locks, how stale
// instances are told apart).
//
// The audit trail's writes, one before and one after every tool call, are
// the hot path: they are written in group commits (see committer), one
// transaction for every call beginning or finishing at the same time, with
// prepared statements, and each still returns only once its own record is
// committed.
//
// Only the dialect packages (internal/store/sqlite, internal/store/postgres)
// may import this package; they open the database, run their own
// migrations through [Migrate] and embed [DB].
package sqlstore
