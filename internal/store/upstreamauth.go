package store

import (
	"context"
	"time"
)

// UpstreamAuthState is one authorization a user began with a per-user
// remote MCP server's own authorization server and has not finished: what
// the callback needs to exchange the code, bound to the user and the
// server. It lives in the store so that any replica can finish it, and is
// taken once.
type UpstreamAuthState struct {
	// StateHash is the lowercase hex SHA-256 of the OAuth state parameter;
	// the state itself is never stored.
	StateHash string
	UserID    string
	Server    string
	// Sealed is the pending authorization (PKCE verifier, client, endpoints),
	// encrypted by app and bound to the user, the server and the state.
	Sealed    []byte
	ExpiresAt time.Time
}

// UpstreamAuthStates keeps pending per-user authorizations with upstream
// servers' authorization servers.
type UpstreamAuthStates interface {
	// PutUpstreamAuthState stores s and deletes every state that expired.
	// ErrInvalid when a field is empty; ErrNotFound when no such user;
	// ErrConflict when the hash is taken.
	PutUpstreamAuthState(ctx context.Context, s UpstreamAuthState) error
	// TakeUpstreamAuthState deletes and returns the state with hash that
	// belongs to userID, in one statement, so of two takers one gets it.
	// ErrNotFound when there is none for that user (another user's state
	// stays untouched) or it has expired (deleted all the same).
	TakeUpstreamAuthState(ctx context.Context, hash, userID string) (UpstreamAuthState, error)
}
