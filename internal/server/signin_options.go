package server

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/signin"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// SignIn configures sign-in to the web UI through an OpenID provider and
// the cookie sessions it starts. Provider, Sessions and Accounts are
// required; zero lifetimes mean the defaults.
type SignIn struct {
	Provider *signin.Provider
	// Label names the provider on the sign-in button.
	Label string
	// Roles maps a value of the provider's role claim to what a user with
	// it gets; several values give the union.
	Roles map[string]SignInRole
	// Default is what a user with no value in Roles gets; nil refuses
	// such a user at sign-in.
	Default *SignInRole
	// Idle ends a session unused this long (default 8h); Absolute ends it
	// this long after sign-in (default 7 days).
	Idle, Absolute time.Duration
	// Sessions keeps the sessions, shared by every replica.
	Sessions store.WebSessions
	// Accounts finds and creates the users of the provider's accounts and
	// sets their role at each sign-in.
	Accounts Accounts
}

// SignInRole is what a role claim value grants.
type SignInRole struct {
	Role        store.Role
	Permissions []string
}

// Accounts is what signing a person in writes: the user linked to their
// account, created on first sign-in, and its role set at every sign-in.
type Accounts interface {
	store.Identities
	UpdateUser(ctx context.Context, u store.User) (store.User, error)
}

// Defaults of [SignIn].
const (
	DefaultSessionIdle     = 8 * time.Hour
	DefaultSessionAbsolute = 7 * 24 * time.Hour
	// flowLifetime bounds one trip to the provider and back.
	flowLifetime = 10 * time.Minute
	// touchEvery is how stale a session's last use may be in the store:
	// a request writes it at most this often, so idle expiry is exact to
	// within this much and reading pages costs no write per request.
	touchEvery = time.Minute
)

func (o *SignIn) withDefaults() {
	if o.Idle <= 0 {
		o.Idle = DefaultSessionIdle
	}
	if o.Absolute <= 0 {
		o.Absolute = DefaultSessionAbsolute
	}
	if o.Provider == nil || o.Sessions == nil || o.Accounts == nil {
		panic("server.New: Options.SignIn needs a Provider, Sessions and Accounts")
	}
}
