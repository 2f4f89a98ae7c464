package app

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// usersWatch follows the users of the store, so that a change made through
// any replica (or `switchboard users add` beside the service) applies on
// this one at once: today it decides whether anonymous access may go on;
// onChange is where a user directory that caches users is told to re-read.
type usersWatch struct {
	st       store.Users
	logger   *slog.Logger
	onChange func()
	// poll, when set, also re-reads that often: SQLite's feed does not
	// reach this process from `switchboard users add` run beside it.
	poll time.Duration

	// none is whether the store had no users at the last look.
	none atomic.Bool
}

// refresh re-reads whether there are users. A failed read keeps the last
// answer, except that it never turns anonymous access back on.
func (w *usersWatch) refresh(ctx context.Context) {
	us, err := w.st.ListUsers(ctx)
	if err != nil {
		w.logger.WarnContext(ctx, "re-reading users after a change", logKeyErr, err)
		return
	}
	if len(us) > 0 {
		w.none.Store(false)
	}
	if w.onChange != nil {
		w.onChange()
	}
}

// run refreshes on every change of the users topic until ctx ends. Its
// caller owns it: cancel ctx and wait for run to return.
func (w *usersWatch) run(ctx context.Context, feed store.Changes) {
	changed, stop := feed.Watch(store.TopicUsers, "")
	defer stop()
	// A user created before the watch began would go unseen.
	w.refresh(ctx)
	var tick <-chan time.Time
	if w.poll > 0 {
		t := time.NewTicker(w.poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			w.refresh(ctx)
		case <-tick:
			if w.none.Load() {
				w.refresh(ctx)
			}
		}
	}
}

// usersChanged is called after a user was created, changed or deleted
// through any replica. The users and keys are read from the store on each
// request, so nothing is cached here to drop yet; a user directory that
// caches them is invalidated here.
func (a *App) usersChanged() {}
