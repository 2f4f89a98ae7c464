package app

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// baseConfig is a configuration with one entry of each kind.
func baseConfig() *config.Config {
	cfg := config.Default()
	cfg.MCPServers = map[string]config.MCPServer{
		"files": {Command: "server-filesystem", Args: []string{"/srv"}, Env: map[string]string{"A": "1", "B": "2", "C": "3"}},
		"web":   {URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t0"}},
	}
	cfg.OpenAPIServers = map[string]config.OpenAPIServer{"mail": {URL: "http://127.0.0.1:9/", Bearer: "bearer-zero"}}
	cfg.Models = map[string]config.Model{"default": {Provider: "openai", Model: "m", APIKey: "key-zero", ToolMode: "auto"}}
	cfg.DefaultModel = "default"
	cfg.Agents = map[string]config.Agent{"bob": {Prompt: "You handle e-mail.", Servers: []string{"mail"}}}
	return cfg
}

func TestDiffDigests(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*config.Config)
		changes []ConfigChange
		restart []string
	}{
		{name: "nothing", edit: func(*config.Config) {}},
		{
			name:    "server added",
			edit:    func(c *config.Config) { c.MCPServers["more"] = config.MCPServer{Command: "x"} },
			changes: []ConfigChange{{Kind: KindMCPServers, Name: "more", Op: OpAdded}},
		},
		{
			name:    "server removed",
			edit:    func(c *config.Config) { delete(c.MCPServers, "web") },
			changes: []ConfigChange{{Kind: KindMCPServers, Name: "web", Op: OpRemoved}},
		},
		{
			name: "server disabled is removed",
			edit: func(c *config.Config) {
				s := c.MCPServers["files"]
				s.Disabled = true
				c.MCPServers["files"] = s
			},
			changes: []ConfigChange{{Kind: KindMCPServers, Name: "files", Op: OpRemoved}},
		},
		{
			name: "header of a remote server",
			edit: func(c *config.Config) {
				s := c.MCPServers["web"]
				s.Headers = map[string]string{"Authorization": "Bearer t1"}
				c.MCPServers["web"] = s
			},
			changes: []ConfigChange{{Kind: KindMCPServers, Name: "web", Op: OpChanged}},
		},
		{
			// The default roots apply to both servers: both change, and
			// the setting itself needs no restart.
			name:    "default roots",
			edit:    func(c *config.Config) { c.MCPRoots = []string{"/data"} },
			changes: []ConfigChange{{Kind: KindMCPServers, Name: "files", Op: OpChanged}, {Kind: KindMCPServers, Name: "web", Op: OpChanged}},
		},
		{
			// JSON shows every secret as REDACTED; the digest must not.
			name:    "secret of a model",
			edit:    func(c *config.Config) { m := c.Models["default"]; m.APIKey = "k1"; c.Models["default"] = m },
			changes: []ConfigChange{{Kind: KindModels, Name: "default", Op: OpChanged}},
		},
		{
			name:    "bearer of an openapi service",
			edit:    func(c *config.Config) { s := c.OpenAPIServers["mail"]; s.Bearer = "b1"; c.OpenAPIServers["mail"] = s },
			changes: []ConfigChange{{Kind: KindOpenAPIServers, Name: "mail", Op: OpChanged}},
		},
		{
			name: "agent prompt, agent added, service removed",
			edit: func(c *config.Config) {
				c.Agents["bob"] = config.Agent{Prompt: "You handle post.", Servers: []string{"mail"}}
				c.Agents["ann"] = config.Agent{Prompt: "hi"}
				delete(c.OpenAPIServers, "mail")
			},
			changes: []ConfigChange{
				{Kind: KindOpenAPIServers, Name: "mail", Op: OpRemoved},
				{Kind: KindAgents, Name: "ann", Op: OpAdded},
				{Kind: KindAgents, Name: "bob", Op: OpChanged},
			},
		},
		{
			name: "limits, rate limits and approvals apply at once",
			edit: func(c *config.Config) {
				c.Limits.TurnTimeout = time.Hour
				c.RateLimits.RequestsPerMinute = 7
				c.Approvals.Mode = "ask-all"
			},
		},
		{
			name:    "the listen address needs a restart",
			edit:    func(c *config.Config) { c.Server.Addr = "127.0.0.1:9" },
			restart: []string{"server"},
		},
		{
			name:    "the assistant applies at once",
			edit:    func(c *config.Config) { c.Assistant.Prompt = "You are terse." },
			changes: nil,
		},
		{
			name: "default model applies at once",
			edit: func(c *config.Config) {
				c.Models["other"] = config.Model{Provider: "openai", Model: "n", ToolMode: "auto"}
				c.DefaultModel = "other"
			},
			changes: []ConfigChange{{Kind: KindModels, Name: "other", Op: OpAdded}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, next := baseConfig(), baseConfig()
			tt.edit(next)
			got := DiffDigests(digests(old), digests(next))
			want := ConfigDiff{Changes: tt.changes, Restart: tt.restart}
			got.changedSettings = nil // what Reload applies; Restart is the part users see
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(ConfigDiff{})); diff != "" {
				t.Errorf("diff mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDigestStable checks that map order (random in Go) never shows as a
// change: a server with several env vars and headers digests the same
// every time.
func TestDigestStable(t *testing.T) {
	first := digests(baseConfig())
	for range 50 {
		if d := DiffDigests(first, digests(baseConfig())); !d.Empty() {
			t.Fatalf("the same configuration differs from itself:\n%s", d)
		}
	}
}

func TestConfigDiffString(t *testing.T) {
	d := ConfigDiff{
		Changes: []ConfigChange{{Kind: KindMCPServers, Name: "a", Op: OpAdded}, {Kind: KindModels, Name: "m", Op: OpRemoved}, {Kind: KindAgents, Name: "bob", Op: OpChanged}},
		Restart: []string{"limits"},
	}
	want := "+ mcpServers.a\n- models.m\n~ agents.bob\n! limits (takes effect at the next start of serve)"
	if diff := cmp.Diff(want, d.String()); diff != "" {
		t.Errorf("String mismatch (-want +got):\n%s", diff)
	}
	if got := (ConfigDiff{}).String(); got != "no changes" {
		t.Errorf("empty diff: %q", got)
	}
}

// TestPendingChanges is what `config check` does: compare the file with
// what serve recorded in the data directory.
func TestPendingChanges(t *testing.T) {
	cfg := baseConfig()
	cfg.Data = t.TempDir()
	if _, _, err := PendingChanges(cfg); !errors.Is(err, ErrNothingApplied) {
		t.Fatalf("before any serve: %v, want ErrNothingApplied", err)
	}
	if err := recordApplied(cfg.Data, digests(cfg), nil); err != nil {
		t.Fatal(err)
	}
	edited := baseConfig()
	edited.Data = cfg.Data
	edited.MCPServers["more"] = config.MCPServer{Command: "x"}
	d, at, err := PendingChanges(edited)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(at) > time.Minute {
		t.Errorf("recorded at %v", at)
	}
	if got := d.String(); got != "+ mcpServers.more" {
		t.Errorf("pending: %q", got)
	}
	// The record holds digests, never a value of the configuration.
	b, err := readFileString(cfg.Data + "/" + appliedFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"key-zero", "bearer-zero", "Bearer t0", "server-filesystem"} {
		if strings.Contains(b, secret) {
			t.Errorf("the record holds %q:\n%s", secret, b)
		}
	}
}

func readFileString(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// TestPendingChangesKeepsRuntimeEntries: an entry an admin added at run
// time is part of what serve runs, so `config check` of the unchanged
// file shows no change (not "- mcpServers.added"), lists the entry as a
// runtime one, and marks it when the file now names it (the file wins).
func TestPendingChangesKeepsRuntimeEntries(t *testing.T) {
	file := baseConfig()
	file.Data = t.TempDir()
	running := file.WithEntries(config.Entries{
		MCPServers: map[string]config.MCPServer{"added": {Command: "added-server"}},
		Models:     map[string]config.Model{"extra": {Provider: "openai", Model: "x", ToolMode: "auto"}},
	})
	if err := recordApplied(file.Data, digests(running), runtimeNames(file, running)); err != nil {
		t.Fatal(err)
	}
	d, _, err := PendingChanges(file)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Empty() || !slices.Equal(d.Runtime, []string{"mcpServers.added", "models.extra"}) {
		t.Errorf("the file as serve runs it: %q, runtime %v; want no change and both runtime entries", d, d.Runtime)
	}

	edited := baseConfig()
	edited.Data = file.Data
	delete(edited.MCPServers, "web")
	edited.MCPServers["added"] = config.MCPServer{Command: "the-file's-own"}
	d, _, err = PendingChanges(edited)
	if err != nil {
		t.Fatal(err)
	}
	want := "~ mcpServers.added (a runtime entry: the file's entry of this name replaces it)\n- mcpServers.web"
	if got := d.String(); got != want {
		t.Errorf("pending:\n%s\nwant:\n%s", got, want)
	}
	if !slices.Equal(d.Runtime, []string{"models.extra"}) {
		t.Errorf("runtime entries kept: %v, want models.extra alone", d.Runtime)
	}
}
