package server

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestReattachAfterLeaving leaves a run's stream after two events, while
// the run goes on, and re-attaches with Last-Event-ID: the stream resumes
// with the next event, ids consecutive, and follows the run to its end.
func TestReattachAfterLeaving(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.KeepRunsOnLeave = true })
	release := make(chan struct{})
	e.runner.run = func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			if !yield(agent.Event{Kind: agent.EventText, Text: "one "}, nil) {
				return
			}
			<-release // the client leaves here; the run must go on
			for _, s := range []string{"two ", "three"} {
				if !yield(agent.Event{Kind: agent.EventText, Text: s}, nil) {
					return
				}
			}
			yield(doneEvent(req.RunID), nil)
		}
	}
	conv := e.createConversation(t)
	ctx, leave := context.WithCancel(t.Context())
	resp := e.openStream(t, ctx, conv, "hi")
	dec := sse.NewDecoder(resp.Body, nil)
	var runID, lastID string
	for _, want := range []string{"run", "text"} {
		ev, err := dec.Next()
		if err != nil || ev.Type != want {
			t.Fatalf("event = %q, %v; want %q", ev.Type, err, want)
		}
		if want == "run" {
			var rs runStarted
			if err := json.Unmarshal(ev.Data, &rs); err != nil {
				t.Fatal(err)
			}
			runID = rs.RunID
		}
		lastID = ev.ID
	}
	leave()
	resp.Body.Close()
	close(release)

	if lastID != "2" {
		t.Fatalf("second event has id %q, want 2", lastID)
	}
	r := e.send(t, http.MethodGet, "/api/v1/runs/"+runID+"/events", e.key, nil, http.Header{"Last-Event-Id": {lastID}})
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("re-attaching: %d", r.StatusCode)
	}
	var got []string
	readEvents(t, r.Body, func(ev sse.Event) {
		var data eventJSON
		_ = json.Unmarshal(ev.Data, &data)
		got = append(got, ev.ID+" "+ev.Type+" "+data.Text)
	})
	want := []string{"3 text two ", "4 text three", "5 done "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resumed events mismatch (-want +got):\n%s", diff)
	}

	// From the start, with ?after=0, the whole run is there.
	code, body := e.do(t, http.MethodGet, "/api/v1/runs/"+runID+"/events?after=0", e.key, nil)
	if code != http.StatusOK {
		t.Fatalf("replay: %d %s", code, body)
	}
	// Someone else's key, a bad id and a bad Last-Event-ID are refused.
	key, hash := NewAPIKey()
	if _, err := e.db.CreateUser(t.Context(), store.User{Name: "bob", KeyHash: hash, Permissions: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, key string
		want      int
	}{
		{"/api/v1/runs/" + runID + "/events", key, http.StatusNotFound},
		{"/api/v1/runs/nope/events", e.key, http.StatusNotFound},
		{"/api/v1/runs/" + runID + "/events?after=x", e.key, http.StatusBadRequest},
	} {
		if code, body := e.do(t, http.MethodGet, tc.path, tc.key, nil); code != tc.want {
			t.Errorf("GET %s: %d %s, want %d", tc.path, code, body, tc.want)
		}
	}
}

// TestCancelKeptRun stops a run that outlives its client through DELETE
// /api/v1/runs/{id}: the run is cancelled and its stream ends with a
// "cancelled" error; a second DELETE is a conflict.
func TestCancelKeptRun(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.KeepRunsOnLeave = true })
	cancelled := make(chan struct{})
	e.runner.run = func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			if !yield(agent.Event{Kind: agent.EventText, Text: "thinking"}, nil) {
				return
			}
			<-ctx.Done()
			close(cancelled)
		}
	}
	conv := e.createConversation(t)
	resp := e.openStream(t, t.Context(), conv, "hi")
	defer resp.Body.Close()
	var runID string
	var last sse.Event
	readEvents(t, resp.Body, func(ev sse.Event) {
		last = sse.Event{Type: ev.Type, Data: append([]byte(nil), ev.Data...)}
		switch ev.Type {
		case "run":
			var rs runStarted
			_ = json.Unmarshal(ev.Data, &rs)
			runID = rs.RunID
		case "text":
			if code, body := e.do(t, http.MethodDelete, "/api/v1/runs/"+runID, e.key, nil); code != http.StatusAccepted {
				t.Errorf("DELETE run: %d %s", code, body)
			}
		}
	})
	<-cancelled
	if last.Type != "error" || !strings.Contains(string(last.Data), `"cancelled"`) {
		t.Errorf("last event %s %s, want the cancelled error", last.Type, last.Data)
	}
	if code, _ := e.do(t, http.MethodDelete, "/api/v1/runs/"+runID, e.key, nil); code != http.StatusConflict {
		t.Errorf("DELETE of an ended run: %d, want 409", code)
	}
}
