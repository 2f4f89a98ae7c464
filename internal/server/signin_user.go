package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/signin"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// grantFor returns what the role claim values give, and whether they give
// anything: the union of every matching entry of roles (admin if any is),
// else def, else nothing.
func grantFor(values []string, roles map[string]SignInRole, def *SignInRole) (SignInRole, bool) {
	var g SignInRole
	found := false
	for _, v := range values {
		r, ok := roles[v]
		if !ok {
			continue
		}
		found = true
		if r.Role == store.RoleAdmin {
			g.Role = store.RoleAdmin
		}
		for _, p := range r.Permissions {
			if !slices.Contains(g.Permissions, p) {
				g.Permissions = append(g.Permissions, p)
			}
		}
	}
	if !found {
		if def == nil {
			return SignInRole{}, false
		}
		g = SignInRole{Role: def.Role, Permissions: slices.Clone(def.Permissions)}
	}
	if g.Role == "" {
		g.Role = store.RoleUser
	}
	if g.Permissions == nil {
		g.Permissions = []string{}
	}
	slices.Sort(g.Permissions)
	return g, true
}

// signInUser returns the user of a verified identity: the one linked to
// its (issuer, subject), with role and permissions set from its claim
// values now, or a new one on first sign-in. A name or e-mail that
// matches an existing user never links to it: those are the provider's
// users' to choose, and would hand over an API key user's account.
func (s *Server) signInUser(ctx context.Context, id signin.Identity) (store.User, error) {
	si := s.opts.SignIn
	g, ok := grantFor(id.Values, si.Roles, si.Default)
	if !ok {
		return store.User{}, signInRefused(http.StatusForbidden,
			"Your account at %s has no role in Switchboard: none of its %s values is mapped. Ask the operator to add one to auth.oidc.roles.", si.Label, claimWord(id.Values))
	}
	u, err := si.Accounts.UserByIdentity(ctx, id.Issuer, id.Subject)
	if errors.Is(err, store.ErrNotFound) {
		u, err = s.createAccountUser(ctx, id, g)
	}
	if err != nil {
		return store.User{}, err
	}
	if u.Disabled {
		return store.User{}, errDisabled
	}
	have := slices.Sorted(slices.Values(u.Permissions))
	if u.Role != g.Role || !slices.Equal(have, g.Permissions) {
		u.Role, u.Permissions = g.Role, g.Permissions
		if u, err = si.Accounts.UpdateUser(ctx, u); err != nil {
			return store.User{}, err
		}
	}
	// The session's first request must see the user as it is now.
	s.users.Invalidate()
	return u, nil
}

func claimWord(values []string) string {
	if len(values) == 0 {
		return "role claim (absent)"
	}
	return "role claim " + strings.Join(values, ", ")
}

// createAccountUser creates the user of an identity signing in for the
// first time. Its API key is random and never shown: such a user signs in
// through the provider (an admin may give them a key later). A taken name
// gets a suffix from the account; an account another replica linked in
// the meantime is read back.
func (s *Server) createAccountUser(ctx context.Context, id signin.Identity, g SignInRole) (store.User, error) {
	si := s.opts.SignIn
	base := userName(id)
	sum := sha256.Sum256([]byte(id.Issuer + "\x00" + id.Subject))
	for _, name := range []string{base, base + "-" + hex.EncodeToString(sum[:4])} {
		_, hash := NewAPIKey()
		u, err := si.Accounts.CreateIdentityUser(ctx, store.User{Name: name, KeyHash: hash, Role: g.Role, Permissions: g.Permissions}, id.Issuer, id.Subject)
		if !errors.Is(err, store.ErrConflict) {
			return u, err
		}
		if u, err := si.Accounts.UserByIdentity(ctx, id.Issuer, id.Subject); err == nil {
			return u, nil
		}
	}
	return store.User{}, errorf(http.StatusConflict, "name_taken", "no free user name for %q; ask the operator to rename the user that has it", base)
}

var nameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._@+-]+`)

// userName is the name a new user of id gets: its label, reduced to
// characters safe in logs and the audit trail, or its subject.
func userName(id signin.Identity) string {
	n := strings.Trim(nameUnsafe.ReplaceAllString(id.Name, "-"), "-")
	if n == "" || strings.EqualFold(n, store.AnonymousUser) {
		n = "oidc-" + strings.Trim(nameUnsafe.ReplaceAllString(id.Subject, "-"), "-")
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}
