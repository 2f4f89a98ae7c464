package config

import (
	"fmt"
	"net/url"
	"slices"
	"time"
)

// Auth configures how people sign in to the web UI besides API keys.
type Auth struct {
	// OIDC, when set, offers "Sign in with <name>" through an OpenID
	// Connect provider (authorization code with PKCE).
	OIDC *OIDC `json:"oidc,omitempty"`
	// Sessions bound the web sessions a sign-in starts.
	Sessions Sessions `json:"sessions"`
}

// OIDC is the organisation's OpenID provider as a relying party sees it.
// Users are matched by (issuer, subject), created on first sign-in, and
// their role and permissions are set from RoleClaim on every sign-in.
type OIDC struct {
	// Issuer is the provider's issuer URL (its discovery document is at
	// Issuer + "/.well-known/openid-configuration").
	Issuer string `json:"issuer"`
	// Name labels the button, "Sign in with <Name>"; default the issuer's host.
	Name         string `json:"name,omitempty"`
	ClientID     string `json:"clientID"`
	ClientSecret Secret `json:"clientSecret,omitempty"`
	// Scopes requested; default openid, profile, email. "openid" is
	// always requested.
	Scopes []string `json:"scopes,omitempty"`
	// RoleClaim names the ID token claim (a string or a list of strings,
	// such as "groups" or "roles") whose values choose entries of Roles.
	RoleClaim string `json:"roleClaim,omitempty"`
	// Roles maps a value of RoleClaim to what a user with it gets. A user
	// with several values gets the union: admin if any says admin, and
	// every permission glob.
	Roles map[string]OIDCRole `json:"roles,omitempty"`
	// Default is what a user none of whose values is in Roles gets; nil
	// refuses such a user at sign-in.
	Default *OIDCRole `json:"default,omitempty"`
}

// OIDCRole is what a claim value grants.
type OIDCRole struct {
	// Role is "user" (default) or "admin".
	Role string `json:"role,omitempty"`
	// Permissions are tool-name globs ("files__*"); none means no tools.
	Permissions []string `json:"permissions,omitempty"`
}

// Sessions bound web UI sessions.
type Sessions struct {
	// Idle ends a session unused this long (default 8h).
	Idle time.Duration `json:"idle"`
	// Absolute ends a session this long after sign-in, used or not
	// (default 7 days).
	Absolute time.Duration `json:"absolute"`
}

// Defaults of [Sessions].
const (
	DefaultSessionIdle     = 8 * time.Hour
	DefaultSessionAbsolute = 7 * 24 * time.Hour
)

// DefaultOIDCScopes are requested when [OIDC].Scopes is empty.
var DefaultOIDCScopes = []string{"openid", "profile", "email"}

func (c *Config) validateAuth(p *problems) {
	s := c.Auth.Sessions
	checkPositive(p, "auth.sessions.idle", s.Idle, DefaultSessionIdle)
	checkPositive(p, "auth.sessions.absolute", s.Absolute, DefaultSessionAbsolute)
	if s.Idle > 0 && s.Absolute > 0 && s.Idle > s.Absolute {
		p.add("auth.sessions.idle", "is longer than auth.sessions.absolute (%s); a session ends at the absolute lifetime whatever its use", s.Absolute)
	}
	o := c.Auth.OIDC
	if o == nil {
		return
	}
	if msg := checkIssuer(o.Issuer); msg != "" {
		p.add("auth.oidc.issuer", "%s", msg)
	}
	if o.ClientID == "" {
		p.add("auth.oidc.clientID", "must be set: the client ID the provider issued when Switchboard was registered with it")
	}
	if len(o.Roles) > 0 && o.RoleClaim == "" {
		p.add("auth.oidc.roleClaim", "must name the ID token claim (such as groups) whose values auth.oidc.roles maps")
	}
	if len(o.Roles) == 0 && o.Default == nil {
		p.add("auth.oidc.roles", "no roles and no default: nobody could sign in; map claim values in roles, or set default for every user of the provider")
	}
	for v, r := range o.Roles {
		checkOIDCRole(p, joinKey("auth.oidc.roles", v), r)
	}
	if o.Default != nil {
		checkOIDCRole(p, "auth.oidc.default", *o.Default)
	}
}

func checkOIDCRole(p *problems, at string, r OIDCRole) {
	if r.Role != "" && r.Role != "user" && r.Role != "admin" {
		p.add(at+".role", "unknown role %q; use user or admin", r.Role)
	}
	for i, g := range r.Permissions {
		if g == "" {
			p.add(fmt.Sprintf("%s.permissions[%d]", at, i), "an empty glob matches no tool; give a tool name or a glob such as files__*")
			continue
		}
		checkGlob(p, fmt.Sprintf("%s.permissions[%d]", at, i), g)
	}
}

// checkIssuer says what is wrong with an OpenID issuer URL, or "": https
// (http only on a loopback host, for local providers), no query or
// fragment (OpenID Connect Discovery section 3).
func checkIssuer(raw string) string {
	if raw == "" {
		return "must be set to the provider's issuer URL, such as https://accounts.google.com"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Sprintf("%q is not an absolute URL without user info, query or fragment, such as https://login.example.com/realms/staff", raw)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !loopbackHost(u.Hostname())) {
		return "must be https (http only on a loopback host, for a local provider)"
	}
	return ""
}

// OIDCScopes returns the scopes to request: Scopes with "openid" first,
// or [DefaultOIDCScopes].
func (o *OIDC) OIDCScopes() []string {
	if len(o.Scopes) == 0 {
		return slices.Clone(DefaultOIDCScopes)
	}
	out := []string{"openid"}
	for _, s := range o.Scopes {
		if s != "openid" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
