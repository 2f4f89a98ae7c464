package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// runItem is one pair of a run's sequence, handed from the pump goroutine
// to the handler.
type runItem struct {
	ev  agent.Event
	err error
}

// pump ranges over a run in its own goroutine and hands each pair over an
// unbuffered channel, so that the handler can wait for the next event, a
// keep-alive tick, the client leaving and shutdown at once. The caller
// owns the goroutine: cancelling ctx ends the run, and stop waits for it.
func (s *Server) pump(ctx context.Context, req *agent.Request) (items <-chan runItem, done <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan runItem)
	fin := make(chan struct{})
	go func() {
		defer close(fin)
		for ev, err := range s.runner.Run(ctx, req) {
			select {
			case ch <- runItem{ev, err}:
			case <-ctx.Done():
				return // breaking out cancels the run and waits for it
			}
		}
	}()
	return ch, fin, func() { cancel(); <-fin }
}

// stream runs req and writes its events as SSE until the run ends, the
// client leaves or the server shuts down (a final "shutdown" event, then
// the run is cancelled). Each event's data is JSON and its id is its
// number in the run, from 1; the first event is "run" with the run and
// conversation ids. The events are kept in the run log when the store has
// one, so that GET /api/v1/runs/{id}/events re-attaches to the stream.
//
// When the client leaves, the run is cancelled, unless
// [Options].KeepRunsOnLeave is set and the run is being recorded: then it
// goes on (bounded by the agent's turn timeout, cancelled at shutdown) so
// that the client can re-attach after a reload, on any replica.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req *agent.Request) error {
	release, err := s.streams.acquire(mustUser(r))
	if err != nil {
		return err
	}
	defer release()
	ctx := r.Context()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	rec := s.newRecorder(ctx, req, owner(mustUser(r)))
	defer rec.finish(ctx)
	// gone is set once the client has left; a kept run is then only
	// recorded.
	gone := false
	send := func(event string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		id := rec.add(ctx, event, data)
		if gone {
			return nil
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
		if err := sse.Write(w, sse.Event{Type: event, ID: strconv.FormatInt(id, 10), Data: data}); err != nil {
			gone = true
			return err
		}
		return nil
	}
	if err := send("run", runStarted{RunID: req.RunID, ConversationID: req.ConversationID}); err != nil && !s.keepRun(rec) {
		return nil // the client left before the run began
	}
	runCtx := ctx
	if s.keepRun(rec) {
		// The run outlives its client; shutdown still ends it.
		var cancel context.CancelFunc
		runCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
	}
	items, done, stop := s.pump(runCtx, req)
	defer stop()
	// A kept run is stopped through DELETE /api/v1/runs/{id}, maybe on
	// another replica: watch for the request.
	var cancelAsked <-chan struct{}
	if feed := s.opts.Changes; feed != nil && s.keepRun(rec) {
		ch, unwatch := feed.Watch(store.TopicRuns, req.RunID)
		defer unwatch()
		cancelAsked = ch
	}
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	log := s.log(ctx).With(logKeyRun, req.RunID)
	clientGone := ctx.Done()
	for {
		select {
		case it := <-items:
			if it.err != nil {
				_ = send("error", eventJSON{Error: runFailure(ctx, log, it.err)})
				return nil
			}
			if err := send(string(it.ev.Kind), toEvent(it.ev)); err != nil {
				log.DebugContext(ctx, "client left during run", logKeyErr, err)
				if !s.keepRun(rec) {
					return nil
				}
			}
		case <-done:
			return nil
		case <-cancelAsked:
			if run, err := rec.log.GetRun(runCtx, req.RunID); err == nil && run.CancelRequested {
				stop()
				_ = send("error", eventJSON{Error: &runErrorJSON{Code: "cancelled", Message: "the run was stopped"}})
				return nil
			}
		case <-clientGone:
			if !s.keepRun(rec) {
				return nil
			}
			gone, clientGone = true, nil
			log.DebugContext(ctx, "client left; the run goes on for re-attaching")
		case <-s.closing:
			_ = send("shutdown", eventJSON{Error: &runErrorJSON{Code: "shutdown", Message: "the server is shutting down; the run was stopped"}})
			return nil
		case <-tick.C:
			if gone {
				continue
			}
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
			if err := sse.WriteComment(w, "keep-alive"); err != nil && !s.keepRun(rec) {
				return nil
			}
		}
	}
}

// keepRun reports whether a run goes on after its client leaves.
func (s *Server) keepRun(rec *recorder) bool { return s.opts.KeepRunsOnLeave && rec.log != nil }

type runStarted struct {
	RunID          string `json:"runId"`
	ConversationID string `json:"conversationId"`
}

// runFailure is the error event of a run that failed: the client's own
// mistakes (an invalid request) are told as such; other causes are logged
// and reported without their internal text.
func runFailure(ctx context.Context, log *slog.Logger, err error) *runErrorJSON {
	if e := classify(err); e.Status < http.StatusInternalServerError {
		log.DebugContext(ctx, "run refused", logKeyErr, err)
		return &runErrorJSON{Code: e.Code, Message: e.Msg}
	}
	log.ErrorContext(ctx, "run failed", logKeyErr, err)
	return &runErrorJSON{Code: "run_failed", Message: "the run failed; the server log has the cause (request id in X-Request-Id)"}
}
