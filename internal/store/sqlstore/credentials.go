package sqlstore

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// PutUserCredential implements [store.Store]: one upsert, so of two
// concurrent puts for one user and server the last wins and the first
// connection time is kept.
func (db *DB) PutUserCredential(ctx context.Context, c store.UserCredential) (store.UserCredential, error) {
	if c.UserID == "" || c.Server == "" || len(c.Sealed) == 0 {
		return store.UserCredential{}, fmt.Errorf("storing a user credential: %w: user, server and sealed value are required", store.ErrInvalid)
	}
	t := now()
	out := store.UserCredential{UserID: c.UserID, Server: c.Server, UpdatedAt: t}
	err := db.w.QueryRowContext(ctx, `INSERT INTO user_credentials (user_id, server, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (user_id, server) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at
		RETURNING created_at`,
		c.UserID, c.Server, base64.StdEncoding.EncodeToString(c.Sealed), db.ts(t), db.ts(t)).Scan(tsCol{&out.CreatedAt})
	if err != nil {
		return store.UserCredential{}, fmt.Errorf("storing the credential of user %q for %q: %w", c.UserID, c.Server, db.classify(err))
	}
	return out, nil
}

// GetUserCredential implements [store.Store]. It reads through the
// writer: a credential just removed on this replica must not be used from
// a lagging reader.
func (db *DB) GetUserCredential(ctx context.Context, userID, server string) (store.UserCredential, error) {
	c := store.UserCredential{UserID: userID, Server: server}
	var sealed string
	err := db.w.QueryRowContext(ctx, `SELECT sealed, created_at, updated_at FROM user_credentials WHERE user_id = ? AND server = ?`,
		userID, server).Scan(&sealed, tsCol{&c.CreatedAt}, tsCol{&c.UpdatedAt})
	if err != nil {
		return store.UserCredential{}, fmt.Errorf("getting the credential of user %q for %q: %w", userID, server, notFound(err, "none connected"))
	}
	if c.Sealed, err = base64.StdEncoding.DecodeString(sealed); err != nil {
		return store.UserCredential{}, fmt.Errorf("credential of user %q for %q: sealed form: %w", userID, server, err)
	}
	return c, nil
}

// ListUserCredentials implements [store.Store].
func (db *DB) ListUserCredentials(ctx context.Context, userID string) ([]store.UserCredential, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT server, created_at, updated_at FROM user_credentials WHERE user_id = ? ORDER BY server`, userID)
	if err != nil {
		return nil, fmt.Errorf("listing the credentials of user %q: %w", userID, err)
	}
	defer rows.Close()
	var out []store.UserCredential
	for rows.Next() {
		c := store.UserCredential{UserID: userID}
		if err := rows.Scan(&c.Server, tsCol{&c.CreatedAt}, tsCol{&c.UpdatedAt}); err != nil {
			return nil, fmt.Errorf("listing the credentials of user %q: %w", userID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the credentials of user %q: %w", userID, err)
	}
	return out, nil
}

// DeleteUserCredential implements [store.Store].
func (db *DB) DeleteUserCredential(ctx context.Context, userID, server string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM user_credentials WHERE user_id = ? AND server = ?`, userID, server)
	if err != nil {
		return fmt.Errorf("deleting the credential of user %q for %q: %w", userID, server, err)
	}
	return mustAffect(res, "deleting the credential for %q: none connected: %w", server)
}
