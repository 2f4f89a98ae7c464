package app

import (
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// poolFeatures gives the gateway the prompts and resources of the MCP
// servers in the pool (mcpserve.Features); the pool's methods are the
// rest of it.
type poolFeatures struct{ *mcphost.Pool }

// FeatureServers names every configured MCP server; one that is down
// fails its listing, which the gateway skips.
func (f poolFeatures) FeatureServers() []string {
	st := f.Status()
	names := make([]string, 0, len(st))
	for _, s := range st {
		names = append(names, s.Name)
	}
	return names
}
