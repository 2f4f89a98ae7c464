package store

import "context"

// Identities links users to accounts at an OpenID provider, for sign-in
// to the web UI. An account is (issuer, subject): the only pair OpenID
// Connect promises is stable and unique; names and e-mail addresses are
// never used to match. Methods are safe for concurrent use.
type Identities interface {
	// UserByIdentity returns the user linked to (issuer, subject), or
	// ErrNotFound. Disabled users are returned too; the caller refuses them.
	UserByIdentity(ctx context.Context, issuer, subject string) (User, error)
	// CreateIdentityUser creates u as [Users].CreateUser does and links it
	// to (issuer, subject), both or neither. ErrConflict when the name or
	// key hash is taken, or the account is already linked (another replica
	// signed the same person in at the same moment).
	CreateIdentityUser(ctx context.Context, u User, issuer, subject string) (User, error)
}
