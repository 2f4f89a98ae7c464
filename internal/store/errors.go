package store

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound means the record asked for does not exist (or no longer does).
	ErrNotFound = errors.New("not found")

	// ErrConflict means the write was refused because the database changed
	// underneath the caller: a unique name or ID is taken, an agent's Version
	// is stale, or an approval or audit record is no longer in the state the
	// write needs (for example a second decision on the same approval).
	// Re-read and decide again.
	ErrConflict = errors.New("conflict")

	// ErrInvalid means the store refused the input before writing anything:
	// a required field is empty or a value is outside its documented set.
	ErrInvalid = errors.New("invalid input")

	// ErrSchemaTooNew means the database was migrated by a newer Switchboard
	// than this one; opening it could corrupt data that version relies on.
	ErrSchemaTooNew = errors.New("database schema is newer than this Switchboard")
)

// invalidf returns an error wrapping [ErrInvalid].
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
