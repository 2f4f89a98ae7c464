package app

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// watchUsers calls invalidate on every change of the users topic until ctx
// ends, so that a user created, changed or removed through another replica
// applies here at once (the user directory otherwise notices within its
// version-check interval). Its caller owns it: cancel ctx and wait.
func watchUsers(ctx context.Context, feed store.Changes, invalidate func()) {
	changed, stop := feed.Watch(store.TopicUsers, "")
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			invalidate()
		}
	}
}
