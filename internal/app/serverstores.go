package app

import "github.com/switchboard-mcp/switchboard/internal/store"

// runLogOf returns st's run log, or nil when the store keeps none. The
// HTTP server takes it as an option rather than finding it itself, so that
// what the store can do is decided here, where the store is opened.
func runLogOf(st store.Store) store.RunLog {
	rl, _ := st.(store.RunLog)
	return rl
}

// changesOf returns st's change feed, or nil when it has none.
func changesOf(st store.Store) store.Changes {
	feed, _ := st.(store.Changes)
	return feed
}
