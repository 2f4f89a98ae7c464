package sqlstore

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// PutUpstreamAuthState implements [store.Store]. Expired states go in the
// same write, so abandoned authorizations do not pile up.
func (db *DB) PutUpstreamAuthState(ctx context.Context, s store.UpstreamAuthState) error {
	if s.StateHash == "" || s.UserID == "" || s.Server == "" || len(s.Sealed) == 0 || s.ExpiresAt.IsZero() {
		return fmt.Errorf("storing an upstream authorization: %w: state hash, user, server, sealed value and expiry are required", store.ErrInvalid)
	}
	if _, err := db.w.ExecContext(ctx, `DELETE FROM upstream_auth_states WHERE expires_at < ?`, db.ts(now())); err != nil {
		return fmt.Errorf("deleting expired upstream authorizations: %w", err)
	}
	_, err := db.w.ExecContext(ctx, `INSERT INTO upstream_auth_states (state_hash, user_id, server, sealed, expires_at) VALUES (?, ?, ?, ?, ?)`,
		s.StateHash, s.UserID, s.Server, base64.StdEncoding.EncodeToString(s.Sealed), db.ts(s.ExpiresAt))
	if err != nil {
		return fmt.Errorf("storing an upstream authorization of user %q for %q: %w", s.UserID, s.Server, db.classify(err))
	}
	return nil
}

// TakeUpstreamAuthState implements [store.Store]: one DELETE ... RETURNING
// that names the user, so a state is used once and only by its user.
func (db *DB) TakeUpstreamAuthState(ctx context.Context, hash, userID string) (store.UpstreamAuthState, error) {
	s := store.UpstreamAuthState{StateHash: hash, UserID: userID}
	var sealed string
	err := db.w.QueryRowContext(ctx, `DELETE FROM upstream_auth_states WHERE state_hash = ? AND user_id = ? RETURNING server, sealed, expires_at`,
		hash, userID).Scan(&s.Server, &sealed, tsCol{&s.ExpiresAt})
	if err != nil {
		return store.UpstreamAuthState{}, fmt.Errorf("taking an upstream authorization: %w", notFound(err, "no such authorization in progress for this user"))
	}
	if !s.ExpiresAt.After(now()) {
		return store.UpstreamAuthState{}, fmt.Errorf("taking an upstream authorization: it expired at %s: %w", s.ExpiresAt.Format("15:04:05"), store.ErrNotFound)
	}
	if s.Sealed, err = base64.StdEncoding.DecodeString(sealed); err != nil {
		return store.UpstreamAuthState{}, fmt.Errorf("upstream authorization: sealed form: %w", err)
	}
	return s, nil
}
