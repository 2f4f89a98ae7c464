package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// TestMCPServerRoots checks which roots each MCP server is offered: its own
// roots key, else the global mcpRoots, never the built-in tools' roots.
func TestMCPServerRoots(t *testing.T) {
	tests := []struct {
		name   string
		global []string
		own    []string
		want   []string
	}{
		{name: "nothing configured", want: nil},
		{name: "global default", global: []string{"/shared"}, want: []string{"/shared"}},
		{name: "own roots win", global: []string{"/shared"}, own: []string{"/mine"}, want: []string{"/mine"}},
		{name: "explicitly none", global: []string{"/shared"}, own: []string{}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Builtin.Roots = []string{"/work"} // what the file tools see; never offered
			cfg.MCPRoots = tt.global
			cfg.MCPServers = map[string]config.MCPServer{"fs": {Command: "server-filesystem", Roots: tt.own}}
			got := mcpServers(cfg, nil)
			if len(got) != 1 {
				t.Fatalf("%d servers", len(got))
			}
			if diff := cmp.Diff(tt.want, got[0].Roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
