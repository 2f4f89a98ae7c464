package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/sse"
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
// client leaves (which cancels the run) or the server shuts down (a final
// "shutdown" event, then the run is cancelled). Each event's data is JSON;
// the first event is "run" with the run and conversation ids.
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

	send := func(event string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
		return sse.WriteEvent(w, event, data)
	}
	if err := send("run", runStarted{RunID: req.RunID, ConversationID: req.ConversationID}); err != nil {
		return nil // the client left before the run began
	}
	items, done, stop := s.pump(ctx, req)
	defer stop()
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	log := s.log(ctx).With(logKeyRun, req.RunID)
	for {
		select {
		case it := <-items:
			if it.err != nil {
				_ = send("error", eventJSON{Error: runFailure(ctx, log, it.err)})
				return nil
			}
			if err := send(string(it.ev.Kind), toEvent(it.ev)); err != nil {
				log.DebugContext(ctx, "client left during run", logKeyErr, err)
				return nil
			}
		case <-done:
			return nil
		case <-ctx.Done():
			return nil
		case <-s.closing:
			_ = send("shutdown", eventJSON{Error: &runErrorJSON{Code: "shutdown", Message: "the server is shutting down; the run was stopped"}})
			return nil
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
			if err := sse.WriteComment(w, "keep-alive"); err != nil {
				return nil
			}
		}
	}
}

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
