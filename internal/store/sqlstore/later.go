package sqlstore

import (
	"context"
	"time"
)

// doLater queues query with args for the next group commit and returns at
// once; after is told the rows it changed, or why it was not written, on
// the goroutine that committed it. Nobody waits for it: the next batch
// takes it (a lone caller's next write, typically), or, when no batch
// follows within laterDelay, the committer's timer commits it. A write
// queued after close is not made (after gets errClosed).
//
// It is for a write whose caller must not wait for the disk but whose
// outcome may wait: an audit record's finish, which a crash before its
// commit leaves running, as a crash before the call returned always did.
// Readers that must see it call flush first.
func (c *committer) doLater(after func(rows int64, err error), query string, args ...any) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		after(0, errClosed)
		return
	}
	w := &write{query: query, args: args, after: after}
	w.state.Store(taken)
	c.later = append(c.later, w)
	c.queuedLater++
	if !c.leading {
		c.armLocked()
	}
	c.mu.Unlock()
}

// armLocked starts the timer that commits the writes of doLater when
// some are queued and no batch will take them.
//
// An armed timer is not pushed back by later writes: with writes queued
// faster than laterDelay apart and no batch to take them (no begins in
// the committer, as with a journal), a timer reset at each would never
// fire.
func (c *committer) armLocked() {
	if len(c.later) == 0 || c.armed {
		return
	}
	c.armed = true
	if c.timer == nil {
		c.timer = time.AfterFunc(c.delay, c.commitLater)
		return
	}
	c.timer.Reset(c.delay)
}

// commitLater is the timer's: it leads a batch of the writes of doLater,
// unless a batch is under way (which takes them, or arms the timer again
// when it ends) or the committer is closed (close commits them).
func (c *committer) commitLater() {
	c.mu.Lock()
	c.armed = false
	if c.leading || c.closed || len(c.later) == 0 {
		c.mu.Unlock()
		return
	}
	c.leading = true
	c.mu.Unlock()
	c.lead(nil)
}

// flush returns once every write doLater queued before it was called is
// committed (or failed), so that a reader sees what callers were told is
// written. It commits them itself rather than wait for the timer.
func (c *committer) flush(ctx context.Context) error {
	c.mu.Lock()
	target := c.queuedLater
	c.mu.Unlock()
	for {
		c.mu.Lock()
		done := c.doneLater >= target
		c.mu.Unlock()
		if done {
			return nil
		}
		// An empty write leads a batch, or joins one, that takes the
		// queued writes first.
		if _, err := c.do(ctx, ""); err != nil {
			return err
		}
	}
}
