package store

import (
	"regexp"
	"time"
)

// User is an API user. Only the SHA-256 of the user's API key is stored, so
// a leaked database does not leak keys.
type User struct {
	// ID is assigned by the store when empty.
	ID string
	// Name is unique.
	Name string
	// KeyHash is the lowercase hex SHA-256 of the API key (64 characters),
	// unique among users.
	KeyHash string
	// Permissions are tool-name globs the user may call ("files__*").
	Permissions []string
	CreatedAt   time.Time
	Disabled    bool
}

var keyHashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Validate reports whether u can be created, as an [ErrInvalid] error.
func (u *User) Validate() error {
	if u.Name == "" {
		return invalidf("user name is empty")
	}
	if !keyHashRE.MatchString(u.KeyHash) {
		return invalidf("user %q: key hash must be 64 lowercase hex characters (the SHA-256 of the API key), not the key itself", u.Name)
	}
	return nil
}
