package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// replayPage bounds the events read from the run log at once.
const replayPage = 500

// runEvents re-attaches to a run's event stream, on any replica: it sends
// the events after Last-Event-ID (or ?after=N; none means from the
// start), with their ids, then follows the run as it goes on until it
// ends. A run whose replica stopped ends with an "interrupted" event.
func (s *Server) runEvents() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rl := s.runLog()
		if rl == nil {
			return errorf(http.StatusNotFound, "not_found", "this server keeps no run events")
		}
		ctx := r.Context()
		u := mustUser(r)
		id := r.PathValue("id")
		run, err := rl.GetRun(ctx, id)
		if err != nil {
			return notFoundAs(err, "no run %q", id)
		}
		if run.User != owner(u) {
			return errorf(http.StatusNotFound, "not_found", "no run %q", id)
		}
		after, err := lastEventID(r)
		if err != nil {
			return err
		}
		// Watch before reading, so that no event falls between the two.
		var changed <-chan struct{}
		if feed := s.opts.Changes; feed != nil {
			ch, stop := feed.Watch(store.TopicRuns, id)
			defer stop()
			changed = ch
		}
		rc := http.NewResponseController(w)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		// Send the headers now: the run may be quiet (waiting for an
		// approval) and the client must know it is attached.
		_ = rc.Flush()
		tick := time.NewTicker(s.opts.KeepAlive)
		defer tick.Stop()
		for {
			evs, err := rl.ListRunEvents(ctx, id, after, replayPage)
			if err != nil {
				return err
			}
			for _, e := range evs {
				_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
				if err := sse.Write(w, sse.Event{Type: e.Kind, ID: strconv.FormatInt(e.Seq, 10), Data: e.Data}); err != nil {
					return nil // the client left
				}
				after = e.Seq
			}
			if len(evs) == replayPage {
				continue
			}
			if run, err = rl.GetRun(ctx, id); err != nil {
				return err
			}
			if run.State != store.RunRunning && after >= run.LastSeq {
				if run.State == store.RunInterrupted {
					_ = sse.WriteEvent(w, "interrupted", []byte(`{"error":{"code":"interrupted","message":"the Switchboard replica running this turn stopped; send the message again"}}`))
				}
				return nil
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return nil
			case <-s.closing:
				_ = sse.WriteEvent(w, "shutdown", []byte(`{"error":{"code":"shutdown","message":"the server is shutting down; re-attach to continue"}}`))
				return nil
			case <-tick.C:
				_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
				if err := sse.WriteComment(w, "keep-alive"); err != nil {
					return nil
				}
			}
		}
	}
}

// lastEventID is the number of the last event the client saw: the
// Last-Event-ID header of a reconnecting EventSource, or ?after=N.
func lastEventID(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest("Last-Event-ID %q is not an event number; send the id of the last event received", v)
	}
	return n, nil
}

// cancelRun stops one of the user's running runs, on whichever replica
// runs it: the request is recorded, and that replica, watching its runs,
// cancels it; its stream ends with a "cancelled" error event.
func (s *Server) cancelRun() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rl := s.runLog()
		if rl == nil {
			return errorf(http.StatusNotFound, "not_found", "this server keeps no runs")
		}
		id := r.PathValue("id")
		run, err := rl.GetRun(r.Context(), id)
		if err != nil {
			return notFoundAs(err, "no run %q", id)
		}
		if run.User != owner(mustUser(r)) {
			return errorf(http.StatusNotFound, "not_found", "no run %q", id)
		}
		if err := rl.CancelRun(r.Context(), id); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return errorf(http.StatusConflict, "not_running", "run %q has ended", id)
			}
			return err
		}
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
}
