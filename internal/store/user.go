package store

import (
	"regexp"
	"strings"
	"time"
)

// AnonymousUser is the name requests without a key act as while no user
// exists (a loopback listener only). It is reserved: no stored user may
// have it, in any letter case, so that nothing which still compares names
// can mistake a stored user for the anonymous one.
const AnonymousUser = "local"

// Role is what a user may do besides calling its tools.
type Role string

const (
	// RoleUser may chat, call the tools its globs allow, and see its own
	// conversations, approvals and audit records.
	RoleUser Role = "user"
	// RoleAdmin may also create, change and delete agents and their
	// servers, restart servers, read their stderr, manage users and read
	// every user's audit records.
	RoleAdmin Role = "admin"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleUser || r == RoleAdmin }

// ManagesShared reports whether r may change what every user runs: agents
// and their servers, server restarts. It is the one rule for that: the
// REST API's admin routes and the assistant's management tools
// (assign_server, remove_server) both ask it, so an assistant can do no
// more for a user than the API lets the user do, whoever approves the
// call. The empty role (a caller whose role nobody set) may not.
func (r Role) ManagesShared() bool { return r == RoleAdmin }

// User is an API user. Only the SHA-256 of the user's API key is stored, so
// a leaked database does not leak keys. Everything a user may do is decided
// by its ID and the fields below, never by its name.
type User struct {
	// ID is assigned by the store when empty.
	ID string
	// Name is unique. It labels the user in logs and the audit trail.
	Name string
	// KeyHash is the lowercase hex SHA-256 of the API key (64 characters),
	// unique among users.
	KeyHash string
	// Permissions are tool-name globs the user may call ("files__*").
	Permissions []string
	// Role is RoleUser or RoleAdmin; empty means RoleUser when creating.
	Role      Role
	CreatedAt time.Time
	Disabled  bool
}

// IsAdmin reports whether u has the admin role.
func (u *User) IsAdmin() bool { return u.Role == RoleAdmin }

var keyHashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Validate reports whether u can be created, as an [ErrInvalid] error.
func (u *User) Validate() error {
	if u.Name == "" {
		return invalidf("user name is empty")
	}
	if strings.EqualFold(u.Name, AnonymousUser) {
		return invalidf("user name %q is reserved for anonymous local access; choose another name", u.Name)
	}
	if u.Role != "" && !u.Role.Valid() {
		return invalidf("user %q: role %q is not %q or %q", u.Name, u.Role, RoleUser, RoleAdmin)
	}
	if !keyHashRE.MatchString(u.KeyHash) {
		return invalidf("user %q: key hash must be 64 lowercase hex characters (the SHA-256 of the API key), not the key itself", u.Name)
	}
	return nil
}
