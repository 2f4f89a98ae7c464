package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const userCols = `id, name, key_hash, permissions, created_at, disabled, role`

func scanUser(row interface{ Scan(...any) error }) (store.User, error) {
	var (
		u     store.User
		perms string
		role  string
	)
	if err := row.Scan(&u.ID, &u.Name, &u.KeyHash, &perms, tsCol{&u.CreatedAt}, &u.Disabled, &role); err != nil {
		return store.User{}, err
	}
	if err := json.Unmarshal([]byte(perms), &u.Permissions); err != nil {
		return store.User{}, fmt.Errorf("user %q permissions: %w", u.Name, err)
	}
	u.Role = store.Role(role)
	return u, nil
}

// CreateUser implements [store.Store].
func (db *DB) CreateUser(ctx context.Context, u store.User) (store.User, error) {
	if err := u.Validate(); err != nil {
		return store.User{}, fmt.Errorf("creating user: %w", err)
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
	_, err = db.w.ExecContext(ctx, `INSERT INTO users (`+userCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Name, u.KeyHash, string(perms), db.ts(u.CreatedAt), u.Disabled, string(u.Role))
	if err != nil {
		return store.User{}, fmt.Errorf("creating user %q: %w", u.Name, db.classify(err))
	}
	db.changed(ctx, store.TopicUsers, u.Name)
	return u, nil
}

// GetUserByName implements [store.Store].
func (db *DB) GetUserByName(ctx context.Context, name string) (store.User, error) {
	u, err := scanUser(db.r.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE name = ?`, name))
	if err != nil {
		return store.User{}, fmt.Errorf("getting user %q: %w", name, notFound(err, "no such user"))
	}
	return u, nil
}

// GetUserByKeyHash implements [store.Store].
func (db *DB) GetUserByKeyHash(ctx context.Context, keyHash string) (store.User, error) {
	u, err := scanUser(db.hot.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE key_hash = ?`, keyHash))
	if err != nil {
		// The hash is as good as a key for lookups; keep it out of errors.
		return store.User{}, fmt.Errorf("getting user by key hash: %w", notFound(err, "no user has this key"))
	}
	return u, nil
}

// ListUsers implements [store.Store].
func (db *DB) ListUsers(ctx context.Context) ([]store.User, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+userCols+` FROM users ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	defer rows.Close()
	var out []store.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("listing users: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	return out, nil
}

// DeleteUser implements [store.Store].
func (db *DB) DeleteUser(ctx context.Context, id string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("deleting user %q: %w", id, err)
	}
	if err := mustAffect(res, "deleting user %q: no such user: %w", id); err != nil {
		return err
	}
	// The name is gone with the row: wake every watcher of users.
	db.changed(ctx, store.TopicUsers, "")
	return nil
}

// GetUser implements [store.Store].
func (db *DB) GetUser(ctx context.Context, id string) (store.User, error) {
	u, err := scanUser(db.r.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
	if err != nil {
		return store.User{}, fmt.Errorf("getting user %q: %w", id, notFound(err, "no such user"))
	}
	return u, nil
}

// UpdateUser implements [store.Store].
func (db *DB) UpdateUser(ctx context.Context, u store.User) (store.User, error) {
	if !u.Role.Valid() {
		return store.User{}, fmt.Errorf("updating user %q: role %q is not %q or %q: %w", u.ID, u.Role, store.RoleUser, store.RoleAdmin, store.ErrInvalid)
	}
	perms := slices.Clone(u.Permissions)
	if perms == nil {
		perms = []string{}
	}
	b, err := json.Marshal(perms)
	if err != nil {
		return store.User{}, fmt.Errorf("updating user %q: %w", u.ID, err)
	}
	res, err := db.w.ExecContext(ctx, `UPDATE users SET role = ?, permissions = ?, disabled = ? WHERE id = ?`,
		string(u.Role), string(b), u.Disabled, u.ID)
	if err != nil {
		return store.User{}, fmt.Errorf("updating user %q: %w", u.ID, db.classify(err))
	}
	if err := mustAffect(res, "updating user %q: no such user: %w", u.ID); err != nil {
		return store.User{}, err
	}
	return db.GetUser(ctx, u.ID)
}

// UsersVersion implements [store.Store]. Triggers on the users table bump
// the number (migration 0002), so writers of any process change it.
func (db *DB) UsersVersion(ctx context.Context) (int64, error) {
	var v int64
	// A hot read: an anonymous request checks it every time (no user may
	// have appeared since), so it is prepared once per connection.
	if err := db.hot.queryRow(ctx, `SELECT version FROM users_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the users version: %w", err)
	}
	return v, nil
}
