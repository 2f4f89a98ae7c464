package store

import (
	"context"
	"encoding/json"
	"time"
)

// RunState is where a [Run] stands.
type RunState string

const (
	RunRunning  RunState = "running"
	RunFinished RunState = "finished"
	// RunInterrupted marks a run whose replica stopped before it finished
	// (see [RunLog.InterruptRuns]).
	RunInterrupted RunState = "interrupted"
)

// Run is one agent run whose events are kept, so that its stream can be
// re-attached, on any replica, after the last event a client saw.
type Run struct {
	ID             string
	ConversationID string
	// User owns the run: only they may re-attach to it.
	User    string
	State   RunState
	LastSeq int64
	// CancelRequested is set by [RunLog.CancelRun]: the replica running
	// the run stops it.
	CancelRequested bool
	CreatedAt       time.Time
	FinishedAt      time.Time
}

// RunEvent is one event of a run's stream as the client receives it: Seq
// (from 1, the SSE id), the SSE event name and its JSON data.
type RunEvent struct {
	RunID     string
	Seq       int64
	Kind      string
	Data      json.RawMessage
	CreatedAt time.Time
}

// RunLog keeps runs and their events. The PostgreSQL and SQLite stores
// implement it; their change feed ([Changes]) announces appended events on
// [TopicRuns] with the run's ID as key. Methods are safe for concurrent use.
type RunLog interface {
	// BeginRun stores r as running by this process (CreatedAt set to now
	// when zero). ErrConflict if the ID is taken; ErrInvalid without an ID.
	BeginRun(ctx context.Context, r Run) error
	// AppendRunEvents stores evs, whose Seqs the run's owner assigns
	// consecutively, and announces them. ErrNotFound if there is no such
	// run; ErrConflict if a Seq is taken.
	AppendRunEvents(ctx context.Context, runID string, evs ...RunEvent) error
	// FinishRun marks the run finished, if it is still running.
	// ErrNotFound if there is no such run.
	FinishRun(ctx context.Context, runID string) error
	// CancelRun asks for the running run to be stopped, by whichever
	// replica runs it (it watches the run's changes). ErrNotFound if there
	// is no such run; ErrConflict if it is no longer running.
	CancelRun(ctx context.Context, runID string) error
	// GetRun returns the run, or ErrNotFound.
	GetRun(ctx context.Context, id string) (Run, error)
	// ListRunEvents returns the run's events with a Seq above after, in
	// order, at most limit of them (0 means all).
	ListRunEvents(ctx context.Context, runID string, after int64, limit int) ([]RunEvent, error)
	// InterruptRuns marks interrupted the running runs, and expires the
	// pending approvals, of processes that are gone (with PostgreSQL:
	// replicas that no longer hold their liveness lock; with SQLite: every
	// other process). It returns how many runs and approvals it changed.
	InterruptRuns(ctx context.Context) (runs, approvals int64, err error)
}
