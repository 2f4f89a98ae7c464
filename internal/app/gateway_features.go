package app

import (
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// poolFeatures gives the gateway the prompts and resources of the MCP
// servers in the pool (mcpserve.Features); the pool's methods are most of
// it.
type poolFeatures struct {
	*mcphost.Pool
	changes *featureChanges
}

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

// FeaturesChanged returns a channel closed at the next prompt or resource
// list change of a server.
func (f poolFeatures) FeaturesChanged() <-chan struct{} { return f.changes.changed() }

// featureChanges broadcasts the pool's prompt and resource list changes
// (mcphost.Options.OnFeaturesChanged) to every gateway, by closing the
// channel each took. The zero value is ready.
type featureChanges struct {
	mu sync.Mutex
	ch chan struct{}
}

func (c *featureChanges) changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *featureChanges) signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}
