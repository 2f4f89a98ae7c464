package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Grants returns the live OAuth grants of the user called name, newest
// first: which client may act as them, for which resource.
func (a *App) Grants(ctx context.Context, name string) ([]store.OAuthGrant, error) {
	st, u, err := a.grantUser(ctx, name)
	if err != nil {
		return nil, err
	}
	return st.ListOAuthGrants(ctx, u.ID)
}

// RevokeGrant revokes the live OAuth grant id of the user called name:
// every token issued from it is refused from then on, on every replica.
func (a *App) RevokeGrant(ctx context.Context, name, id string) error {
	st, u, err := a.grantUser(ctx, name)
	if err != nil {
		return err
	}
	if err := st.RevokeOAuthGrant(ctx, u.ID, id); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("user %q has no live grant %q; list them with `switchboard grants list %s`", name, id, name)
	} else if err != nil {
		return err
	}
	return nil
}

// grantUser opens the store and finds the user called name.
func (a *App) grantUser(ctx context.Context, name string) (store.Store, store.User, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, store.User{}, err
	}
	u, err := st.GetUserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, store.User{}, fmt.Errorf("no user named %q; list users with `switchboard users list`", name)
	}
	if err != nil {
		return nil, store.User{}, err
	}
	return st, u, nil
}
