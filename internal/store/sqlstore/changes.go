package sqlstore

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Watch implements [store.Changes]: it watches this process's feed, which
// the dialect package also feeds with other replicas' changes.
func (db *DB) Watch(topic store.Topic, key string) (<-chan struct{}, func()) {
	return db.feed.Watch(topic, key)
}

// Notify implements [store.Notifier]: it wakes this process's watchers of
// c and, through [Dialect.Notify], other replicas'.
func (db *DB) Notify(ctx context.Context, c store.Change) error {
	db.feed.Publish(c)
	if db.d.Notify == nil {
		return nil
	}
	return db.d.Notify(ctx, c)
}

// Feed returns the in-process feed, for the dialect package to publish the
// changes other replicas announce.
func (db *DB) Feed() *store.Feed { return &db.feed }

// changed announces a committed write. A failure to tell other replicas is
// not the write's failure: their watchers fall back on polling, so it is
// dropped here rather than failing a write that did happen.
func (db *DB) changed(ctx context.Context, topic store.Topic, key string) {
	_ = db.Notify(context.WithoutCancel(ctx), store.Change{Topic: topic, Key: key})
}

var (
	_ store.Changes  = (*DB)(nil)
	_ store.Notifier = (*DB)(nil)
)
