package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPerUserForms(t *testing.T) {
	c := mustLoad(t, "p.yaml", `
mcpServers:
  shared: {url: "https://example.com/mcp"}
  gh: {url: "https://example.com/mcp", credentials: perUser}
  keyed: {url: "https://example.com/mcp", perUser: {header: X-Api-Key}}
  raw: {url: "https://example.com/mcp", perUser: {prefix: ""}}
  browser: {command: a, perUser: true}
  notes: {command: a, perUser: {env: NOTES_TOKEN, idleTimeout: 1m, maxInstances: 3}}
openapiServers:
  mail: {url: "https://example.com", credentials: perUser}
`, nil)
	empty, bearer := "", "Bearer "
	want := map[string]*PerUser{
		"shared":  nil,
		"gh":      {Enabled: true, Header: "Authorization", Prefix: &bearer},
		"keyed":   {Enabled: true, Header: "X-Api-Key", Prefix: &empty},
		"raw":     {Enabled: true, Header: "Authorization", Prefix: &empty},
		"browser": {Enabled: true, Header: "Authorization", Prefix: &bearer},
		"notes":   {Enabled: true, Header: "Authorization", Prefix: &bearer, Env: "NOTES_TOKEN", IdleTimeout: time.Minute, MaxInstances: 3},
	}
	for name, w := range want {
		s := c.MCPServers[name]
		if diff := cmp.Diff(w, PerUserOf(s.Credentials, s.PerUser)); diff != "" {
			t.Errorf("%s: per-user mismatch (-want +got):\n%s", name, diff)
		}
	}
	if m := c.OpenAPIServers["mail"]; PerUserOf(m.Credentials, m.PerUser) == nil {
		t.Errorf("openapi mail is not per-user")
	}
}

func TestPerUserProblems(t *testing.T) {
	_, err := loadText(t, "p.yaml", `
mcpServers:
  a: {url: "https://example.com/mcp", credentials: mine}
  b: {url: "https://example.com/mcp", perUser: {env: TOKEN}}
  c: {command: a, perUser: {header: X-Key, maxInstances: -1}}
  d: {command: a, credentials: shared, perUser: {idleTimeout: -1s}}
`, nil)
	got := strings.Join(problemsOf(err), "\n")
	for _, w := range []string{
		`mcpServers.a.credentials: unknown value "mine"`,
		"mcpServers.b.perUser.env: env applies to stdio servers",
		"mcpServers.c.perUser: header and prefix apply to remote servers",
		"mcpServers.c.perUser.maxInstances: must not be negative",
		"mcpServers.d.perUser: credentials is shared but perUser is set",
		"mcpServers.d.perUser.idleTimeout",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems lack %q; got:\n%s", w, got)
		}
	}
	_, err = loadText(t, "p.yaml", "mcpServers:\n  e: {command: a, perUser: sometimes}\n", nil)
	if got := strings.Join(problemsOf(err), "\n"); !strings.Contains(got, "mcpServers.e.perUser: expected true, false or a mapping") {
		t.Errorf("perUser: sometimes gave %q", got)
	}
}
