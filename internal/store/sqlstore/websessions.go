package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

var _ store.WebSessions = (*DB)(nil)

// CreateWebSession implements [store.WebSessions]. The insert selects the
// user row, so a session for a missing user inserts nothing and is
// ErrNotFound in both dialects, whatever their foreign-key errors say.
func (db *DB) CreateWebSession(ctx context.Context, s store.WebSession) (store.WebSession, error) {
	if err := s.Validate(); err != nil {
		return store.WebSession{}, fmt.Errorf("creating web session: %w", err)
	}
	s.CreatedAt = now()
	s.LastSeenAt = s.CreatedAt
	s.ExpiresAt = s.ExpiresAt.UTC().Truncate(time.Microsecond)
	res, err := db.w.ExecContext(ctx, `INSERT INTO web_sessions (id_hash, user_id, created_at, last_seen_at, expires_at)
		SELECT ?, id, ?, ?, ? FROM users WHERE id = ?`,
		s.IDHash, db.ts(s.CreatedAt), db.ts(s.LastSeenAt), db.ts(s.ExpiresAt), s.UserID)
	if err != nil {
		return store.WebSession{}, fmt.Errorf("creating web session: %w", db.classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return store.WebSession{}, fmt.Errorf("creating web session: %w", err)
	} else if n == 0 {
		return store.WebSession{}, fmt.Errorf("creating web session: user %q: %w", s.UserID, store.ErrNotFound)
	}
	return s, nil
}

// GetWebSession implements [store.WebSessions]. It reads the primary (the
// writer), so a session ended on another replica is refused at once.
func (db *DB) GetWebSession(ctx context.Context, idHash string) (store.WebSession, error) {
	var s store.WebSession
	err := db.w.QueryRowContext(ctx, `SELECT id_hash, user_id, created_at, last_seen_at, expires_at FROM web_sessions WHERE id_hash = ?`, idHash).
		Scan(&s.IDHash, &s.UserID, tsCol{&s.CreatedAt}, tsCol{&s.LastSeenAt}, tsCol{&s.ExpiresAt})
	if err != nil {
		return store.WebSession{}, fmt.Errorf("getting web session: %w", notFound(err, "no such session"))
	}
	return s, nil
}

// TouchWebSession implements [store.WebSessions].
func (db *DB) TouchWebSession(ctx context.Context, idHash string, at time.Time) error {
	res, err := db.w.ExecContext(ctx, `UPDATE web_sessions SET last_seen_at = ? WHERE id_hash = ?`,
		db.ts(at.UTC().Truncate(time.Microsecond)), idHash)
	if err != nil {
		return fmt.Errorf("touching web session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("touching web session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("touching web session: no such session: %w", store.ErrNotFound)
	}
	return nil
}

// DeleteWebSession implements [store.WebSessions].
func (db *DB) DeleteWebSession(ctx context.Context, idHash string) error {
	if _, err := db.w.ExecContext(ctx, `DELETE FROM web_sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("deleting web session: %w", err)
	}
	return nil
}

// DeleteUserWebSessions implements [store.WebSessions].
func (db *DB) DeleteUserWebSessions(ctx context.Context, userID string) error {
	if _, err := db.w.ExecContext(ctx, `DELETE FROM web_sessions WHERE user_id = ?`, userID); err != nil {
		return fmt.Errorf("deleting web sessions of user %q: %w", userID, err)
	}
	return nil
}
