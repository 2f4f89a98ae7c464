package store

import (
	"context"
	"sync"
)

// Topic names a kind of record whose changes other parts of a process, and
// other replicas sharing the database, must learn of at once.
type Topic string

// The topics of the change feed.
const (
	// TopicUsers changes when a user is created, changed or deleted; Key is
	// the user's name.
	TopicUsers Topic = "users"
	// TopicApprovals changes when an approval is decided or expires; Key is
	// the approval's ID.
	TopicApprovals Topic = "approvals"
	// TopicAgents changes when an agent is created, edited or deleted; Key
	// is the agent's name.
	TopicAgents Topic = "agents"
	// TopicRuns changes when a run gains events; Key is the run's ID.
	TopicRuns Topic = "runs"
	// TopicConfig changes when a configuration entry added at run time is
	// created, changed or deleted; Key is "kind/name".
	TopicConfig Topic = "config"
)

// Change is one entry of the change feed: something about Key on Topic
// changed. An empty Key means anything on the topic may have changed (a
// bulk update, or a replica that lost the feed for a while and must
// re-read); watchers of every key of the topic are woken.
type Change struct {
	Topic Topic
	Key   string
}

// Changes is implemented by stores that announce their writes: the SQLite
// store within its process, the PostgreSQL store to every replica (LISTEN/
// NOTIFY, with polling while the listening connection is down). Changes
// carry no data: a watcher re-reads what it needs from the store, so a
// missed or repeated notification costs a read, never a wrong answer.
type Changes interface {
	// Watch returns a channel that receives a value after each change of
	// topic for key ("" watches every key of the topic), and a stop
	// function that ends the watch. Notifications coalesce: the channel
	// holds at most one, so a slow watcher sees "something changed since
	// you last looked", never a backlog. Safe for concurrent use; stop is
	// idempotent.
	Watch(topic Topic, key string) (<-chan struct{}, func())
}

// Notifier announces a change made outside the store's own writes, so that
// watchers in this process and other replicas learn of it.
type Notifier interface {
	// Notify announces c. It fails only when other replicas could not be
	// told; watchers in this process are woken in any case.
	Notify(ctx context.Context, c Change) error
}

// Feed is the in-process half of the change feed: watchers register with
// [Feed.Watch] and [Feed.Publish] wakes those that match. The zero Feed is
// ready to use and safe for concurrent use.
type Feed struct {
	// mu guards watchers.
	mu       sync.Mutex
	watchers map[Change]map[*watcher]struct{}
}

type watcher struct{ ch chan struct{} }

var _ Changes = (*Feed)(nil)

// Watch implements [Changes].
func (f *Feed) Watch(topic Topic, key string) (<-chan struct{}, func()) {
	w := &watcher{ch: make(chan struct{}, 1)}
	c := Change{Topic: topic, Key: key}
	f.mu.Lock()
	if f.watchers == nil {
		f.watchers = map[Change]map[*watcher]struct{}{}
	}
	set := f.watchers[c]
	if set == nil {
		set = map[*watcher]struct{}{}
		f.watchers[c] = set
	}
	set[w] = struct{}{}
	f.mu.Unlock()
	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			delete(f.watchers[c], w)
			if len(f.watchers[c]) == 0 {
				delete(f.watchers, c)
			}
		})
	}
}

// Publish wakes the watchers of c: those of c.Key and those of every key of
// c.Topic; a change with an empty Key wakes every watcher of the topic. It
// never blocks.
func (f *Feed) Publish(c Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.Key == "" {
		for k, set := range f.watchers {
			if k.Topic == c.Topic {
				wake(set)
			}
		}
		return
	}
	wake(f.watchers[c])
	wake(f.watchers[Change{Topic: c.Topic}])
}

// PublishAll wakes every watcher of every topic, for a feed that may have
// missed changes (a replica's listening connection was down).
func (f *Feed) PublishAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, set := range f.watchers {
		wake(set)
	}
}

func wake(set map[*watcher]struct{}) {
	for w := range set {
		select {
		case w.ch <- struct{}{}:
		default: // one pending wake-up is enough: watchers re-read
		}
	}
}
