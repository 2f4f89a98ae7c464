package app

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// TestMCPServerOAuthGrant checks that the configured grant reaches mcphost:
// client_credentials as mcphost's, the authorization-code flow (spelled out
// or left out) as mcphost's default.
func TestMCPServerOAuthGrant(t *testing.T) {
	for grant, want := range map[string]string{
		"":                   "",
		"authorization_code": "",
		"client_credentials": mcphost.GrantClientCredentials,
	} {
		cfg := config.Default()
		sc := mcpServer(cfg, "remote", config.MCPServer{URL: "https://mcp.example/mcp", OAuth: &config.OAuth{Grant: grant, ClientID: "svc"}})
		if sc.OAuth == nil || sc.OAuth.Grant != want || sc.OAuth.ClientID != "svc" {
			t.Errorf("grant %q: mcphost OAuth %+v, want grant %q", grant, sc.OAuth, want)
		}
	}
}
