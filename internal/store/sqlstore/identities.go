package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

var _ store.Identities = (*DB)(nil)

// UserByIdentity implements [store.Identities]. It reads the primary, so
// a user another replica created a moment ago is found.
func (db *DB) UserByIdentity(ctx context.Context, issuer, subject string) (store.User, error) {
	u, err := scanUser(db.w.QueryRowContext(ctx, `SELECT `+prefixed("u.", userCols)+` FROM users u
		JOIN user_identities i ON i.user_id = u.id WHERE i.issuer = ? AND i.subject = ?`, issuer, subject))
	if err != nil {
		return store.User{}, fmt.Errorf("getting user of an OpenID account: %w", notFound(err, "no user is linked to this account"))
	}
	return u, nil
}

// CreateIdentityUser implements [store.Identities].
func (db *DB) CreateIdentityUser(ctx context.Context, u store.User, issuer, subject string) (store.User, error) {
	if err := u.Validate(); err != nil {
		return store.User{}, fmt.Errorf("creating user: %w", err)
	}
	if issuer == "" || subject == "" {
		return store.User{}, fmt.Errorf("creating user %q: %w", u.Name, store.ErrInvalid)
	}
	if u.ID == "" {
		u.ID = store.NewID()
	}
	u.CreatedAt = orNow(u.CreatedAt)
	if u.Role == "" {
		u.Role = store.RoleUser
	}
	u.Permissions = slices.Clone(u.Permissions)
	if u.Permissions == nil {
		u.Permissions = []string{}
	}
	perms, err := json.Marshal(u.Permissions)
	if err != nil {
		return store.User{}, fmt.Errorf("creating user %q: %w", u.Name, err)
	}
	err = db.write(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO users (`+userCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Name, u.KeyHash, string(perms), db.ts(u.CreatedAt), u.Disabled, string(u.Role)); err != nil {
			return db.classify(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)`,
			issuer, subject, u.ID, db.ts(u.CreatedAt)); err != nil {
			return db.classify(err)
		}
		return nil
	})
	if err != nil {
		return store.User{}, fmt.Errorf("creating user %q: %w", u.Name, err)
	}
	db.changed(ctx, store.TopicUsers, u.Name)
	return u, nil
}
