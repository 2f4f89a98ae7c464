package store

import (
	"context"
	"time"
)

// WebSession is a signed-in web UI session. The cookie holds a random
// value; only its SHA-256 is stored, so a leaked database does not leak
// live sessions.
type WebSession struct {
	// IDHash is the lowercase hex SHA-256 of the cookie value.
	IDHash string
	UserID string
	// CreatedAt is set by the store. LastSeenAt starts equal to it.
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is the absolute expiry, whatever the activity.
	ExpiresAt time.Time
}

// Validate reports whether s can be created, as an [ErrInvalid] error.
func (s *WebSession) Validate() error {
	if !keyHashRE.MatchString(s.IDHash) {
		return invalidf("web session: id hash must be 64 lowercase hex characters (the SHA-256 of the cookie value)")
	}
	if s.UserID == "" {
		return invalidf("web session: user id is empty")
	}
	if s.ExpiresAt.IsZero() {
		return invalidf("web session: expiry is not set")
	}
	return nil
}

// WebSessions keeps web UI sessions. Every replica reads the same rows, so
// a session deleted on one is refused by all on their next read. Methods
// are safe for concurrent use.
type WebSessions interface {
	// CreateWebSession stores s with CreatedAt = LastSeenAt = now and
	// returns it. A user that does not exist is ErrNotFound.
	CreateWebSession(ctx context.Context, s WebSession) (WebSession, error)
	// GetWebSession returns the session with idHash, expired or not (the
	// caller decides expiry); ErrNotFound when there is none.
	GetWebSession(ctx context.Context, idHash string) (WebSession, error)
	// TouchWebSession sets the session's LastSeenAt to at; ErrNotFound when
	// there is none.
	TouchWebSession(ctx context.Context, idHash string, at time.Time) error
	// DeleteWebSession ends one session; deleting a missing one is not an
	// error (logout is idempotent).
	DeleteWebSession(ctx context.Context, idHash string) error
	// DeleteUserWebSessions ends every session of userID.
	DeleteUserWebSessions(ctx context.Context, userID string) error
}
