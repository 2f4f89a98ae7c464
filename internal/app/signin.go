package app

import (
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/signin"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// signInLabel is the provider's name on the web UI's sign-in button, or
// "" when sign-in is not configured.
func signInLabel(cfg *config.Config) string {
	o := cfg.Auth.OIDC
	if o == nil {
		return ""
	}
	if o.Name != "" {
		return o.Name
	}
	return signin.Label(o.Issuer)
}

// signInOf maps auth.oidc onto the server's sign-in, or nil when it is
// not configured. The provider is reached on the first sign-in, so serve
// starts while it is down.
func signInOf(cfg *config.Config, st store.Store) *server.SignIn {
	o := cfg.Auth.OIDC
	if o == nil {
		return nil
	}
	si := &server.SignIn{
		Provider: signin.New(signin.Options{
			Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret.Value(),
			Scopes: o.OIDCScopes(), RoleClaim: o.RoleClaim,
		}),
		Label:    signInLabel(cfg),
		Roles:    map[string]server.SignInRole{},
		Idle:     cfg.Auth.Sessions.Idle,
		Absolute: cfg.Auth.Sessions.Absolute,
		Sessions: st,
		Accounts: st,
	}
	for v, r := range o.Roles {
		si.Roles[v] = roleOf(r)
	}
	if o.Default != nil {
		d := roleOf(*o.Default)
		si.Default = &d
	}
	return si
}

func roleOf(r config.OIDCRole) server.SignInRole {
	role := store.RoleUser
	if r.Role == string(store.RoleAdmin) {
		role = store.RoleAdmin
	}
	return server.SignInRole{Role: role, Permissions: r.Permissions}
}
