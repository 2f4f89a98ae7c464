package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testRunLog(t *testing.T, s store.Store) {
	ctx := t.Context()
	rl, ok := s.(store.RunLog)
	if !ok {
		t.Fatalf("%T does not implement store.RunLog", s)
	}
	wantErr(t, "BeginRun without ID", rl.BeginRun(ctx, store.Run{}), store.ErrInvalid)
	must(t, "BeginRun", rl.BeginRun(ctx, store.Run{ID: "r1", ConversationID: "c1", User: "ada"}))
	wantErr(t, "BeginRun again", rl.BeginRun(ctx, store.Run{ID: "r1"}), store.ErrConflict)
	var evs []store.RunEvent
	for i := range 5 {
		evs = append(evs, store.RunEvent{Seq: int64(i + 1), Kind: "text", Data: json.RawMessage(fmt.Sprintf(`{"text":"part %d"}`, i))})
	}
	must(t, "AppendRunEvents", rl.AppendRunEvents(ctx, "r1", evs[:2]...))
	must(t, "AppendRunEvents", rl.AppendRunEvents(ctx, "r1", evs[2:]...))
	wantErr(t, "AppendRunEvents with a taken Seq", rl.AppendRunEvents(ctx, "r1", store.RunEvent{Seq: 3, Kind: "text", Data: json.RawMessage(`{}`)}), store.ErrConflict)
	wantErr(t, "AppendRunEvents to no run", rl.AppendRunEvents(ctx, "nope", evs[0]), store.ErrNotFound)

	got, err := rl.ListRunEvents(ctx, "r1", 2, 0)
	must(t, "ListRunEvents", err)
	var seqs []int64
	for _, e := range got {
		seqs = append(seqs, e.Seq)
		if e.RunID != "r1" || e.CreatedAt.IsZero() {
			t.Errorf("event %+v", e)
		}
	}
	if diff := cmp.Diff([]int64{3, 4, 5}, seqs); diff != "" {
		t.Errorf("Seqs after 2 mismatch (-want +got):\n%s", diff)
	}
	if string(got[0].Data) != `{"text":"part 2"}` {
		t.Errorf("data %s", got[0].Data)
	}
	if got, err := rl.ListRunEvents(ctx, "r1", 0, 2); err != nil || len(got) != 2 {
		t.Errorf("ListRunEvents with limit 2: %d events, %v", len(got), err)
	}
	r, err := rl.GetRun(ctx, "r1")
	must(t, "GetRun", err)
	if r.State != store.RunRunning || r.LastSeq != 5 || r.User != "ada" || r.ConversationID != "c1" {
		t.Errorf("run %+v", r)
	}
	must(t, "CancelRun", rl.CancelRun(ctx, "r1"))
	if r, _ := rl.GetRun(ctx, "r1"); !r.CancelRequested || r.State != store.RunRunning {
		t.Errorf("run after CancelRun %+v; want running with CancelRequested", r)
	}
	must(t, "FinishRun", rl.FinishRun(ctx, "r1"))
	wantErr(t, "CancelRun of a finished run", rl.CancelRun(ctx, "r1"), store.ErrConflict)
	wantErr(t, "CancelRun of no run", rl.CancelRun(ctx, "nope"), store.ErrNotFound)
	if r, _ := rl.GetRun(ctx, "r1"); r.State != store.RunFinished || r.FinishedAt.IsZero() {
		t.Errorf("finished run %+v", r)
	}
	_, err = rl.GetRun(ctx, "nope")
	wantErr(t, "GetRun of no run", err, store.ErrNotFound)
	wantErr(t, "FinishRun of no run", rl.FinishRun(ctx, "nope"), store.ErrNotFound)
	if p, ok := s.(interface {
		PruneRuns(ctx context.Context, before time.Time) (int64, error)
	}); ok {
		n, err := p.PruneRuns(ctx, time.Now().Add(time.Minute))
		must(t, "PruneRuns", err)
		if _, gerr := rl.GetRun(ctx, "r1"); n != 1 || !errors.Is(gerr, store.ErrNotFound) {
			t.Errorf("PruneRuns = %d and the finished run %v; want it deleted", n, gerr)
		}
		if evs, _ := rl.ListRunEvents(ctx, "r1", 0, 0); len(evs) != 0 {
			t.Errorf("%d events of a pruned run left", len(evs))
		}
	}
	// This process's own runs are never interrupted.
	must(t, "BeginRun", rl.BeginRun(ctx, store.Run{ID: "r2"}))
	if runs, _, err := rl.InterruptRuns(ctx); err != nil || runs != 0 {
		t.Errorf("InterruptRuns = %d, %v; want 0 with only this process's runs", runs, err)
	}
}

// DeadReplica checks that a replica's running runs and pending approvals,
// left behind when it stopped (dead: closed without finishing them), are
// interrupted and expired by another (survivor), and that a live
// replica's (live) are left alone.
func DeadReplica(t *testing.T, dead, live, survivor store.Store, closeDead func()) {
	ctx := t.Context()
	for i, s := range []store.Store{dead, live} {
		id := fmt.Sprintf("run-%d", i)
		c, err := s.CreateConversation(ctx, store.Conversation{})
		must(t, "CreateConversation", err)
		must(t, "BeginRun", s.(store.RunLog).BeginRun(ctx, store.Run{ID: id, ConversationID: c.ID}))
		_, err = s.CreateApproval(ctx, store.Approval{ConversationID: c.ID, RunID: id, Tool: "terminal"})
		must(t, "CreateApproval", err)
	}
	closeDead()
	runs, approvals, err := survivor.(store.RunLog).InterruptRuns(ctx)
	must(t, "InterruptRuns", err)
	if runs != 1 || approvals != 1 {
		t.Errorf("InterruptRuns = %d runs, %d approvals; want the dead replica's 1 and 1", runs, approvals)
	}
	for id, want := range map[string]store.RunState{"run-0": store.RunInterrupted, "run-1": store.RunRunning} {
		r, err := survivor.(store.RunLog).GetRun(ctx, id)
		must(t, "GetRun", err)
		if r.State != want {
			t.Errorf("run %s is %s, want %s", id, r.State, want)
		}
	}
	pending, err := survivor.ListPendingApprovals(ctx, store.ApprovalFilter{})
	must(t, "ListPendingApprovals", err)
	if len(pending) != 1 || pending[0].RunID != "run-1" {
		t.Errorf("pending approvals %+v; want only the live replica's", pending)
	}
}
