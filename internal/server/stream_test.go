package server

import (
	"context"
	"encoding/json"
	"iter"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// approvingRunner is a fake run with one tool call that needs approval: it
// stores the approval, yields it, and waits for Decide.
func approvingRunner(t *testing.T, db store.Store) *fakeRunner {
	decided := make(chan agent.Decision, 1)
	return &fakeRunner{
		run: func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
			return func(yield func(agent.Event, error) bool) {
				call := &agent.CallInfo{ID: "c1", Name: "files__write", Server: "files", Arguments: json.RawMessage(`{}`)}
				if !yield(agent.Event{Kind: agent.EventText, Text: "let me write"}, nil) {
					return
				}
				a, err := db.CreateApproval(ctx, store.Approval{ConversationID: req.ConversationID, RunID: req.RunID, CallID: "c1", Tool: call.Name, Server: "files"})
				if err != nil {
					yield(agent.Event{}, err)
					return
				}
				if !yield(agent.Event{Kind: agent.EventApproval, Approval: &store.Approval{ID: a.ID, ConversationID: req.ConversationID, Tool: call.Name, State: store.ApprovalPending}}, nil) {
					return
				}
				var d agent.Decision
				select {
				case d = <-decided:
				case <-ctx.Done():
					yield(agent.Event{}, ctx.Err())
					return
				}
				evs := []agent.Event{
					{Kind: agent.EventApprovalResolved, Approval: &store.Approval{ID: a.ID, Tool: call.Name, State: store.ApprovalApproved, DecidedBy: d.By}},
					{Kind: agent.EventToolStart, Call: call},
					{Kind: agent.EventToolEnd, Call: call, Result: &agent.CallResult{Outcome: store.OutcomeOK, Text: "written", Approval: store.AuditApproved}},
					{Kind: agent.EventText, Text: "done"},
					doneEvent(req.RunID),
				}
				for _, ev := range evs {
					if !yield(ev, nil) {
						return
					}
				}
			}
		},
		decide: func(ctx context.Context, id string, d agent.Decision) error {
			if _, err := db.DecideApproval(ctx, id, store.Decision{State: store.ApprovalApproved, DecidedBy: d.By}); err != nil {
				return err
			}
			decided <- d
			return nil
		},
	}
}

func TestRunStreamWithApproval(t *testing.T) {
	e := newEnv(t, nil)
	*e.runner = *approvingRunner(t, e.db)
	conv := e.createConversation(t)
	resp := e.openStream(t, context.Background(), conv, "write it")
	defer resp.Body.Close()

	var decidedBy string
	got := readEvents(t, resp.Body, func(ev sse.Event) {
		if ev.Type != "approval" {
			return
		}
		data := decode[eventJSON](t, ev.Data)
		code, b := e.do(t, http.MethodPost, "/api/v1/approvals/"+data.Approval.ID, e.key, decideBody{Decision: decideApprove})
		if code != http.StatusOK {
			t.Errorf("deciding: %d %s", code, b)
		}
		decidedBy = decode[approvalJSON](t, b).DecidedBy
	})
	want := []string{"run", "text", "approval", "approval_resolved", "tool_start", "tool_end", "text", "done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if decidedBy != "alice" {
		t.Errorf("approval decided by %q, want alice", decidedBy)
	}
}

func TestClientDisconnectCancelsRun(t *testing.T) {
	e := newEnv(t, nil)
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
	ctx, cancel := context.WithCancel(context.Background())
	resp := e.openStream(t, ctx, conv, "hi")
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, nil)
	for _, want := range []string{"run", "text"} {
		ev, err := dec.Next()
		if err != nil || ev.Type != want {
			t.Fatalf("event = %q, %v; want %q", ev.Type, err, want)
		}
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the run was not cancelled after the client left")
	}
}

func TestShutdownEndsStream(t *testing.T) {
	e := newEnv(t, nil)
	e.runner.run = func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			if yield(agent.Event{Kind: agent.EventText, Text: "working"}, nil) {
				<-ctx.Done()
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- e.srv.Serve(ln) }()
	e.ts.URL = "http://" + ln.Addr().String() // send through the real server
	conv := e.createConversation(t)
	resp := e.openStream(t, context.Background(), conv, "hi")
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, nil)
	for _, want := range []string{"run", "text"} {
		if ev, err := dec.Next(); err != nil || ev.Type != want {
			t.Fatalf("event = %q, %v; want %q", ev.Type, err, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	ev, err := dec.Next()
	if err != nil || ev.Type != "shutdown" {
		t.Fatalf("last event = %q, %v; want shutdown", ev.Type, err)
	}
	if _, err := dec.Next(); err == nil {
		t.Fatal("the stream went on after the shutdown event")
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	e.ts.Client().CloseIdleConnections()
}
