package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// AddUser creates a user with a new API key and returns the key, which is
// shown once: only its hash is stored. permissions are tool-name globs;
// none means every tool. admin gives the user the admin role.
func (a *App) AddUser(ctx context.Context, name string, admin bool, permissions []string) (store.User, string, error) {
	if strings.EqualFold(name, store.AnonymousUser) {
		return store.User{}, "", fmt.Errorf("the name %q is reserved for anonymous access on loopback while no user exists; choose another name", name)
	}
	st, err := a.Store(ctx)
	if err != nil {
		return store.User{}, "", err
	}
	if err := checkNameUnused(ctx, st, name); err != nil {
		return store.User{}, "", err
	}
	if len(permissions) == 0 {
		permissions = []string{"*"}
	}
	role := store.RoleUser
	if admin {
		role = store.RoleAdmin
	}
	key, hash := server.NewAPIKey()
	u, err := st.CreateUser(ctx, store.User{Name: name, KeyHash: hash, Permissions: permissions, Role: role})
	if errors.Is(err, store.ErrConflict) {
		return store.User{}, "", fmt.Errorf("a user named %q exists already; remove it first to issue a new key", name)
	}
	if err != nil {
		return store.User{}, "", err
	}
	a.InvalidateUsers()
	return u, key, nil
}

// checkNameUnused refuses a name that a removed user left conversations or
// audit records under: they are filed by name, so a new user with the name
// would see them.
func checkNameUnused(ctx context.Context, st store.Store, name string) error {
	convs, _, err := st.ListConversations(ctx, store.ConversationFilter{User: name, Limit: 1})
	if err != nil {
		return fmt.Errorf("checking the name %q: %w", name, err)
	}
	recs, err := st.ListAudit(ctx, store.AuditFilter{User: name, Limit: 1})
	if err != nil {
		return fmt.Errorf("checking the name %q: %w", name, err)
	}
	if len(convs) > 0 || len(recs) > 0 {
		if _, err := st.GetUserByName(ctx, name); err == nil {
			return nil // the user exists; CreateUser reports the conflict
		}
		return fmt.Errorf("a removed user named %q left conversations or audit records, which a new user with that name would see; choose another name", name)
	}
	return nil
}

// UserChange is a change to a user's role, tools or state; nil fields stay
// as they are.
type UserChange struct {
	Admin *bool
	// Permissions replace the user's tool-name globs.
	Permissions []string
	Disabled    *bool
}

// SetUser changes the named user and returns it as stored. The change
// applies to running servers at once: they check the store's users
// version.
func (a *App) SetUser(ctx context.Context, name string, c UserChange) (store.User, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return store.User{}, err
	}
	u, err := st.GetUserByName(ctx, name)
	if err != nil {
		return store.User{}, fmt.Errorf("user %q: %w", name, err)
	}
	if c.Admin != nil {
		u.Role = store.RoleUser
		if *c.Admin {
			u.Role = store.RoleAdmin
		}
	}
	if c.Permissions != nil {
		u.Permissions = c.Permissions
	}
	if c.Disabled != nil {
		u.Disabled = *c.Disabled
	}
	u, err = st.UpdateUser(ctx, u)
	if err != nil {
		return store.User{}, fmt.Errorf("changing user %q: %w", name, err)
	}
	a.InvalidateUsers()
	return u, nil
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
	if err := st.DeleteUser(ctx, u.ID); err != nil {
		return err
	}
	a.InvalidateUsers()
	return nil
}

// InvalidateUsers makes the running server re-read the users at its next
// request, instead of within its check interval. Call it when the store
// announces that users changed (another replica's write); the app calls
// it after its own writes. It does nothing when not serving.
func (a *App) InvalidateUsers() {
	if s := a.svc.Load(); s != nil {
		s.users.Invalidate()
	}
}
