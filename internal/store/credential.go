package store

import (
	"context"
	"time"
)

// UserCredential is what one user connected for one per-user upstream (an
// MCP server or OpenAPI service with credentials: perUser): a token or
// header value they entered. The store keeps it only sealed by app, bound
// to the user and the upstream; it never sees a key and never decrypts.
type UserCredential struct {
	// UserID is the store ID of the user it belongs to; Server names the
	// upstream. Together they are the key: one credential per user and upstream.
	UserID string
	Server string
	// Sealed is the credential, encrypted. Lists leave it empty.
	Sealed    []byte
	CreatedAt time.Time // when the user first connected
	UpdatedAt time.Time // when they last replaced it
}

// UserCredentials keeps users' own credentials for per-user upstreams.
// Every method takes the user ID: there is no way to read or list another
// user's credentials through this interface without naming that user, and
// the HTTP API only ever names the caller. A user's credentials go when the
// user is deleted.
type UserCredentials interface {
	// PutUserCredential stores c (CreatedAt kept when it replaces one,
	// UpdatedAt = now) and returns it without Sealed. ErrInvalid when the
	// user ID, the server or Sealed is empty; ErrNotFound when no such user.
	PutUserCredential(ctx context.Context, c UserCredential) (UserCredential, error)
	// GetUserCredential returns the user's credential for server, Sealed
	// included, or ErrNotFound.
	GetUserCredential(ctx context.Context, userID, server string) (UserCredential, error)
	// ListUserCredentials returns the user's credentials without Sealed,
	// ordered by server.
	ListUserCredentials(ctx context.Context, userID string) ([]UserCredential, error)
	// DeleteUserCredential deletes the user's credential for server, or
	// returns ErrNotFound.
	DeleteUserCredential(ctx context.Context, userID, server string) error
}
