package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidateAuth(t *testing.T) {
	good := func() *OIDC {
		return &OIDC{
			Issuer: "https://login.example.com/realms/staff", ClientID: "switchboard",
			RoleClaim: "groups", Roles: map[string]OIDCRole{"sb-admins": {Role: "admin", Permissions: []string{"*"}}},
		}
	}
	tests := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{name: "valid", edit: func(c *Config) { c.Auth.OIDC = good() }},
		{name: "default only", edit: func(c *Config) {
			o := good()
			o.Roles, o.RoleClaim, o.Default = nil, "", &OIDCRole{}
			c.Auth.OIDC = o
		}},
		{name: "loopback http issuer", edit: func(c *Config) { o := good(); o.Issuer = "http://127.0.0.1:4444/"; c.Auth.OIDC = o }},
		{
			name: "http issuer elsewhere",
			edit: func(c *Config) { o := good(); o.Issuer = "http://login.example.com"; c.Auth.OIDC = o },
			want: []string{"auth.oidc.issuer: must be https (http only on a loopback host, for a local provider)"},
		},
		{
			name: "missing issuer and client",
			edit: func(c *Config) { o := good(); o.Issuer, o.ClientID = "", ""; c.Auth.OIDC = o },
			want: []string{
				"auth.oidc.issuer: must be set to the provider's issuer URL, such as https://accounts.google.com",
				"auth.oidc.clientID: must be set: the client ID the provider issued when Switchboard was registered with it",
			},
		},
		{
			name: "roles without claim, bad role and glob",
			edit: func(c *Config) {
				o := good()
				o.RoleClaim = ""
				o.Roles = map[string]OIDCRole{"x": {Role: "root", Permissions: []string{"", "[a"}}}
				c.Auth.OIDC = o
			},
			want: []string{
				"auth.oidc.roleClaim: must name the ID token claim (such as groups) whose values auth.oidc.roles maps",
				`auth.oidc.roles.x.role: unknown role "root"; use user or admin`,
				"auth.oidc.roles.x.permissions[0]: an empty glob matches no tool; give a tool name or a glob such as files__*",
				`auth.oidc.roles.x.permissions[1]: bad glob "[a": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
			},
		},
		{
			name: "nobody could sign in",
			edit: func(c *Config) { o := good(); o.Roles = nil; c.Auth.OIDC = o },
			want: []string{"auth.oidc.roles: no roles and no default: nobody could sign in; map claim values in roles, or set default for every user of the provider"},
		},
		{
			name: "idle longer than absolute",
			edit: func(c *Config) { c.Auth.Sessions = Sessions{Idle: 48 * time.Hour, Absolute: time.Hour} },
			want: []string{"auth.sessions.idle: is longer than auth.sessions.absolute (1h0m0s); a session ends at the absolute lifetime whatever its use"},
		},
		{
			name: "zero lifetimes",
			edit: func(c *Config) { c.Auth.Sessions = Sessions{} },
			want: []string{
				"auth.sessions.idle: must be greater than 0; leave it out for the default 8h0m0s",
				"auth.sessions.absolute: must be greater than 0; leave it out for the default 168h0m0s",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validBase()
			tt.edit(c)
			if diff := cmp.Diff(tt.want, problemsOf(c.Validate())); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadAuthSecretFromEnv(t *testing.T) {
	c := mustLoad(t, "c.yaml", `
auth:
  oidc:
    issuer: https://accounts.google.com
    clientID: sb
    clientSecret: ${OIDC_CLIENT_SECRET}
    default: {role: user}
  sessions: {idle: 1h}
`, envMap{"OIDC_CLIENT_SECRET": "s3cret"})
	if got := c.Auth.OIDC.ClientSecret.Value(); got != "s3cret" {
		t.Errorf("client secret = %q, want it from the environment", got)
	}
	if c.Auth.Sessions.Idle != time.Hour || c.Auth.Sessions.Absolute != DefaultSessionAbsolute {
		t.Errorf("sessions = %+v, want idle 1h and the default absolute", c.Auth.Sessions)
	}
	if diff := cmp.Diff([]string{"openid", "profile", "email"}, c.Auth.OIDC.OIDCScopes()); diff != "" {
		t.Errorf("scopes mismatch (-want +got):\n%s", diff)
	}
}
