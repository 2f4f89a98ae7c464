package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// dialect is how the shared queries run on SQLite. Transactions begin
// IMMEDIATE on the single writer connection, so no row locks are needed, and
// the database serves one process, so there are no instance claims.
func dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		// Times are INTEGER microseconds since the epoch: they sort and compare
		// as numbers, which SQLite's text timestamps would not across zones.
		Time: func(t time.Time) any { return t.UnixMicro() },
		// Arguments are TEXT kept byte for byte, whether or not they are valid
		// JSON.
		ToolArgs: func(a json.RawMessage) any { return string(a) },
		Classify: classify,
		// No WriteTimeout: busy_timeout already bounds the wait for
		// another process's write lock, and the driver could not interrupt
		// a write stuck in the kernel anyway; a context that can end would
		// also cost it a goroutine per statement.
		ToolMatch: func(glob string) (string, any) {
			return `tool GLOB ?`, globPattern(glob)
		},
	}
}

// globPattern turns the store's glob (only * and ? are special) into a
// SQLite GLOB pattern, where '[' would start a character class.
func globPattern(glob string) string {
	return strings.ReplaceAll(glob, "[", "[[]")
}

// classify maps SQLite constraint failures onto the store's sentinels.
func classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return err
}
