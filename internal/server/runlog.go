package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// flushEvery bounds how long text deltas wait in a run's recorder: a
// client re-attaching elsewhere sees them at most this late. Events other
// than text are written at once.
const flushEvery = 100 * time.Millisecond

// recorder numbers a run's events (the SSE id) and keeps them in the run
// log, so that the stream can be re-attached on any replica. It belongs to
// the goroutine streaming the run; it is not safe for concurrent use.
type recorder struct {
	log    store.RunLog // nil records nothing and numbers only
	runID  string
	logger *slog.Logger

	seq       int64
	pending   []store.RunEvent
	lastFlush time.Time
	failed    bool // a write failed: stop writing, keep streaming
}

// runLog returns the store's run log, or nil if it keeps none.
func (s *Server) runLog() store.RunLog {
	return s.opts.RunLog
}

// newRecorder begins the run in the log (when there is one).
func (s *Server) newRecorder(ctx context.Context, req *agent.Request, user string) *recorder {
	rec := &recorder{log: s.runLog(), runID: req.RunID, logger: s.log(ctx), lastFlush: time.Now()}
	if rec.log == nil {
		return rec
	}
	if err := rec.log.BeginRun(ctx, store.Run{ID: req.RunID, ConversationID: req.ConversationID, User: user}); err != nil {
		rec.logger.WarnContext(ctx, "recording run; it cannot be re-attached", logKeyRun, req.RunID, logKeyErr, err)
		rec.log = nil
	}
	return rec
}

// add numbers one event and returns its id; it writes the pending events
// when this one is not a delta or they have waited flushEvery.
func (r *recorder) add(ctx context.Context, kind string, data []byte) int64 {
	r.seq++
	if r.log == nil || r.failed {
		return r.seq
	}
	r.pending = append(r.pending, store.RunEvent{Seq: r.seq, Kind: kind, Data: json.RawMessage(data), CreatedAt: time.Now()})
	delta := kind == string(agent.EventText) || kind == string(agent.EventReasoning)
	if !delta || time.Since(r.lastFlush) >= flushEvery {
		r.flush(ctx)
	}
	return r.seq
}

// flush writes the pending events. The writes outlive the client: a run
// whose client left is still recorded for the one who re-attaches.
func (r *recorder) flush(ctx context.Context) {
	r.lastFlush = time.Now()
	if len(r.pending) == 0 || r.log == nil || r.failed {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.log.AppendRunEvents(wctx, r.runID, r.pending...); err != nil {
		r.logger.WarnContext(ctx, "recording run events; re-attaching will miss the rest", logKeyRun, r.runID, logKeyErr, err)
		r.failed = true
	}
	r.pending = r.pending[:0]
}

// finish writes what is pending and marks the run finished.
func (r *recorder) finish(ctx context.Context) {
	r.flush(ctx)
	if r.log == nil {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.log.FinishRun(wctx, r.runID); err != nil {
		r.logger.WarnContext(ctx, "marking run finished", logKeyRun, r.runID, logKeyErr, err)
	}
}
