package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// AddUser creates a user with a new API key and returns the key, which is
// shown once: only its hash is stored. permissions are tool-name globs;
// none means every tool.
func (a *App) AddUser(ctx context.Context, name string, permissions []string) (store.User, string, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return store.User{}, "", err
	}
	if len(permissions) == 0 {
		permissions = []string{"*"}
	}
	key, hash := server.NewAPIKey()
	u, err := st.CreateUser(ctx, store.User{Name: name, KeyHash: hash, Permissions: permissions})
	if errors.Is(err, store.ErrConflict) {
		return store.User{}, "", fmt.Errorf("a user named %q exists already; remove it first to issue a new key", name)
	}
	return u, key, err
}

// Users lists the users.
func (a *App) Users(ctx context.Context) ([]store.User, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListUsers(ctx)
}

// RemoveUser deletes the named user; its key stops working at once.
func (a *App) RemoveUser(ctx context.Context, name string) error {
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	u, err := st.GetUserByName(ctx, name)
	if err != nil {
		return fmt.Errorf("user %q: %w", name, err)
	}
	return st.DeleteUser(ctx, u.ID)
}
