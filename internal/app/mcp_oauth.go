package app

import (
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// oauthGrant maps a validated config grant onto mcphost's: "" is the
// authorization-code flow in both.
func oauthGrant(g string) string {
	if g == config.GrantClientCredentials {
		return mcphost.GrantClientCredentials
	}
	return ""
}
