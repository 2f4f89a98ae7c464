package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A committer writes in group commits. A caller queues a statement; when
// no batch is being committed, it leads: it takes every statement queued
// (up to maxBatch) and runs them in one transaction, so that N concurrent
// tool calls cost one commit (one WAL append; on PostgreSQL one round trip
// and one flush to disk) instead of N. While it commits, the next writers
// queue; when it is done it hands the lead to the first of them, which
// commits them all. A lone caller thus writes on its own goroutine, with
// no handoff and no timer, and callers under load share commits.
//
// A caller returns only after its statement is committed, or with an error
// when nothing of it was written: a write a leader has taken is waited for
// even when the caller's context ends meanwhile, because returning then
// could report a failure for a record that is in the database.
//
// There is no goroutine of its own: [committer.close] refuses new writes
// and waits until the writes queued are committed.
type committer struct {
	db       *DB
	maxBatch int
	// stmts is used by the leader only.
	stmts *stmtSet

	// mu guards queue, leading and closed; idle is signalled when leading
	// becomes false.
	mu      sync.Mutex
	idle    sync.Cond
	queue   []*write
	leading bool
	closed  bool
	// inBatch is the number of writes the leader is committing, for
	// tests to tell when a batch is under way.
	inBatch int
	// batch is the leader's, kept between batches.
	batch []*write

	// delay is how long the timer waits: laterDelay, or journalDelay
	// when begins are journaled.
	delay time.Duration
	// later holds the writes queued by doLater, which nobody waits for:
	// the next batch takes them first. When no batch is under way when
	// one is queued, or none follows the one that ends, timer commits
	// them after laterDelay. queuedLater and doneLater count them, for
	// flush. All guarded by mu.
	later       []*write
	timer       *time.Timer
	armed       bool
	queuedLater uint64
	doneLater   uint64
}

// laterDelay is how long a write queued by doLater waits for a batch to
// join before the committer's timer commits it alone. A lone caller's next
// call usually comes sooner, so that its finish and its next begin share
// one commit.
const laterDelay = 2 * time.Millisecond

// journalDelay is laterDelay when begins are journaled (see journal): no
// begin will come to share the finishes' commit, so they wait longer for
// one another. At 16 callers a commit then holds hundreds of rows rather
// than about twenty, and the commits' cost per call (a transaction, WAL
// frames, -shm locks) all but goes: 67 → 62 µs of CPU per proxied call
// (docs/BENCHMARKS.md). A crash loses at most this much of finishes,
// whose calls are then recorded as interrupted.
const journalDelay = 50 * time.Millisecond

// journalBatch is maxBatch when begins are journaled: at journalDelay a
// commit holds a few hundred finishes, one transaction for them all.
// A batch of them holds SQLite's write lock for a few milliseconds.
const journalBatch = 512

// write is one queued statement.
type write struct {
	query string // as written, with '?'
	args  []any
	state atomic.Int32
	// rows and err are set before done is closed: the rows the statement
	// changed, or why it was not written. lead, also set before, tells
	// the caller to lead the next batch instead.
	rows int64
	err  error
	lead bool
	done chan struct{}
	// finished is set by finish, on the leader's goroutine only.
	finished bool
	// after, for a write queued by doLater (done is nil then), is told
	// its outcome once the batch that took it is committed.
	after func(rows int64, err error)
}

// States of a write: it moves from queued either to taken (a leader runs
// it, or it is made leader, and the caller waits for the outcome) or to
// abandoned (the caller's context ended first; it is never run).
const (
	queued int32 = iota
	taken
	abandoned
)

// errClosed is returned for writes asked of a closed store.
var errClosed = errors.New("database is closed")

// newCommitter returns a committer for writes that run the given queries,
// of which those in multi may run several rows to a statement.
func newCommitter(db *DB, maxBatch int, queries []string, multi map[string]multiRow) *committer {
	c := &committer{
		db:       db,
		maxBatch: maxBatch,
		stmts:    newStmtSet(db, queries, multi),
		batch:    make([]*write, 0, maxBatch),
		delay:    laterDelay,
	}
	c.idle.L = &c.mu
	return c
}

// do runs query (one of the committer's queries) with args in a group
// commit and returns the number of rows it changed, once it is committed.
// It fails without writing when ctx ends before the write is taken, or
// when the committer is closed.
func (c *committer) do(ctx context.Context, query string, args ...any) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	w := &write{query: query, args: args, done: make(chan struct{})}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return 0, errClosed
	case !c.leading:
		c.leading = true
		w.state.Store(taken)
		w.lead = true
		c.mu.Unlock()
		c.lead(w)
		return w.rows, w.err
	}
	c.queue = append(c.queue, w)
	c.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		if w.state.CompareAndSwap(queued, abandoned) {
			return 0, ctx.Err()
		}
		<-w.done
	}
	if w.lead {
		c.lead(w)
	}
	return w.rows, w.err
}

// lead commits a batch that starts with first, then hands the lead to the
// first write still queued, or gives it up. While a full batch of writes
// nobody waits for is left queued and nobody else would lead, it goes on
// leading: the timer alone would take one batch per delay and fall
// behind.
func (c *committer) lead(first *write) {
	for c.leadOnce(first) {
		first = nil
	}
}

// leadOnce commits one batch and hands over; it reports whether the
// caller keeps the lead for another.
func (c *committer) leadOnce(first *write) (again bool) {
	batch := c.batch[:0]
	if first != nil {
		batch = append(batch, first)
	}
	// Let the callers that can run now (typically those the last commit
	// released) queue their next writes first; with nobody to run this
	// returns at once. This, not a timer, is what fills batches: with 16
	// callers it raised the mean batch from 3 writes to 12, while a wait
	// of even 300 µs cost a lone caller 1.5 ms per write on a loaded
	// machine and more CPU per call than it saved (docs/BENCHMARKS.md).
	runtime.Gosched()
	c.mu.Lock()
	batch = c.takeLocked(batch)
	c.inBatch = len(batch)
	c.mu.Unlock()
	// recover works only in the deferred function itself.
	defer func() { again = c.handOver(batch, recover()) }()
	c.commit(batch)
	return false
}

// handOver ends a lead: it hands the lead to the first write still
// queued, or gives it up, or, with a full batch of writes nobody waits
// for still queued, reports that the leader should go on. When the
// batch panicked with p (a driver's bug), it first fails the writes of batch
// still waiting, so that their callers and those queued behind them are
// not left waiting forever, and then lets the panic go on in the
// leader's caller.
func (c *committer) handOver(batch []*write, p any) bool {
	if p != nil {
		for _, w := range batch {
			if !w.finished {
				w.err = fmt.Errorf("the database driver panicked: %v", p)
				w.finish()
			}
		}
	}
	var later uint64
	for _, w := range batch {
		if w.after != nil {
			later++
		}
	}
	clear(batch) // let the writes go
	c.batch = batch

	c.mu.Lock()
	c.doneLater += later
	c.inBatch = 0
	var next *write
	for next == nil && len(c.queue) > 0 {
		w := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		if w.state.CompareAndSwap(queued, taken) {
			next = w
		}
	}
	again := next == nil && p == nil && len(c.later) >= c.maxBatch
	if next == nil && !again {
		c.leading = false
		c.idle.Broadcast()
		c.armLocked()
	}
	c.mu.Unlock()
	if next != nil {
		next.lead = true
		close(next.done)
	}
	if p != nil {
		panic(p)
	}
	return again
}

// finish tells w's caller that its outcome is set. A leader's own write
// needs no signal: its caller is the one running the batch.
func (w *write) finish() {
	w.finished = true
	switch {
	case w.after != nil:
		w.after(w.rows, w.err)
	case !w.lead:
		close(w.done)
	}
}

// close refuses new writes and waits until those queued are committed.
// It is idempotent and safe for concurrent use.
func (c *committer) close() error {
	c.mu.Lock()
	c.closed = true
	for c.leading || len(c.later) > 0 {
		if !c.leading {
			// The writes nobody waits for are committed now rather
			// than by the timer.
			c.leading = true
			c.mu.Unlock()
			c.lead(nil)
			c.mu.Lock()
			continue
		}
		c.idle.Wait()
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.stmts.close()
}

// takeLocked moves queued writes into batch, up to its capacity or
// maxBatch: first those of doLater, then the others, skipping those
// abandoned by their callers.
func (c *committer) takeLocked(batch []*write) []*write {
	limit := min(cap(batch), c.maxBatch)
	nl := min(len(c.later), max(limit-len(batch), 0))
	batch = append(batch, c.later[:nl]...)
	rest := copy(c.later, c.later[nl:])
	clear(c.later[rest:])
	c.later = c.later[:rest]
	n := 0
	for _, w := range c.queue {
		if len(batch) == limit {
			break
		}
		n++
		if w.state.CompareAndSwap(queued, taken) {
			batch = append(batch, w)
		}
	}
	rest = copy(c.queue, c.queue[n:])
	clear(c.queue[rest:])
	c.queue = c.queue[:rest]
	return batch
}

// context returns the context one attempt runs under: not the callers'
// (they may stop waiting; the write goes on so that its outcome is known),
// bounded by the dialect's WriteTimeout.
func (c *committer) context() (context.Context, context.CancelFunc) {
	if t := c.db.d.WriteTimeout; t > 0 {
		return context.WithTimeout(context.Background(), t)
	}
	return context.Background(), func() {}
}

// commit runs batch in one transaction. When that fails, no write of it
// was kept, and each is run again alone, so that a write that cannot be
// made fails by itself and its neighbours get their own outcomes.
func (c *committer) commit(batch []*write) {
	ctx, cancel := c.context()
	err := c.stmts.run(ctx, batch)
	cancel()
	if err == nil {
		for _, w := range batch {
			w.finish()
		}
		return
	}
	if len(batch) == 1 || errors.Is(err, context.DeadlineExceeded) {
		// Nothing to tell apart: alone, or the database did not answer
		// in time, which retrying one by one would only make longer.
		for _, w := range batch {
			w.err = err
			w.finish()
		}
		return
	}
	for _, w := range batch {
		ctx, cancel := c.context()
		w.err = c.stmts.run(ctx, []*write{w})
		cancel()
		w.finish()
	}
}
