package postgres

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// dialect is how the shared queries run on PostgreSQL, where several
// replicas share the database: rows about to be updated are locked, and
// running audit records are interrupted only when their instance's
// advisory lock is free (see claim).
func (db *DB) dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Rebind: rebind,
		Args:   textArgs,
		// timestamptz takes time.Time as it is.
		Time:     func(t time.Time) any { return t },
		ToolArgs: argsCol,
		Classify: classify,
		ToolMatch: func(glob string) (string, any) {
			return `tool LIKE ? ESCAPE '\'`, likePattern(glob)
		},
		// Concurrent edits of an agent queue on its row instead of failing
		// the version check.
		LockRow: "FOR UPDATE",
		// A server that stops answering must not hold the audit trail's
		// callers forever: TCP notices a dead peer only after minutes.
		WriteTimeout: 30 * time.Second,
		Pipeline:     pipeline,
		Claim:        db.claim,
		Notify:       db.notify,
	}
}

// rebind numbers the '?' placeholders of query. The shared queries have no
// '?' inside string literals.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// textArgs replaces NUL bytes and invalid UTF-8 in string arguments with
// U+FFFD, because PostgreSQL text refuses both and a tool's error text or
// a model's output must not make a write fail. (Tool arguments, kept byte
// for byte, are []byte and go to bytea columns untouched.)
func textArgs(args []any) []any {
	cloned := false
	for i, a := range args {
		s, ok := a.(string)
		if !ok || (utf8.ValidString(s) && !strings.Contains(s, "\x00")) {
			continue
		}
		if !cloned {
			// The caller's slice is not ours to change.
			args, cloned = slices.Clone(args), true
		}
		args[i] = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	}
	return args
}

// argsCol converts tool arguments to their bytea column value. bytea, not
// text, because arguments are kept byte for byte as the model sent them, and
// text refuses NUL bytes and invalid UTF-8.
func argsCol(a json.RawMessage) any {
	if a == nil {
		return []byte{}
	}
	return []byte(a)
}

// likePattern turns the store's glob (only * and ? are special) into a LIKE
// pattern: '%', '_' and '\' are escaped, since '_' is common in tool names.
func likePattern(glob string) string {
	var b strings.Builder
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteByte('%')
		case '?':
			b.WriteByte('_')
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// classify maps PostgreSQL constraint failures onto the store's sentinels.
func classify(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "23505": // unique_violation
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case "23503": // foreign_key_violation
		return fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return err
}
