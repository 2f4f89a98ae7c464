package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testConcurrentAudit begins and finishes many calls at once, as a
// gateway under load does, so that a store that writes in group commits
// puts them in the same transactions: each caller must get its own ID and
// its own answer, and each record must hold what its caller asked.
func testConcurrentAudit(t *testing.T, s store.Store) {
	const callers, each = 16, 15
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		want = map[string]store.AuditRecord{} // by ID
	)
	for i := range callers {
		wg.Go(func() {
			for j := range each {
				name := fmt.Sprintf("t%d_%d", i, j)
				rec := store.AuditRecord{User: name, CallID: name, Tool: "tool_" + name, Arguments: []byte(`{"n":"` + name + `"}`)}
				id, err := s.BeginAudit(ctx(t), rec)
				if err != nil {
					t.Errorf("BeginAudit %s: %v", name, err)
					return
				}
				res := store.AuditResult{Outcome: store.OutcomeToolError, Error: "error of " + name, ResultBytes: int64(i*1000 + j)}
				if err := s.FinishAudit(ctx(t), id, res); err != nil {
					t.Errorf("FinishAudit %s: %v", name, err)
					return
				}
				// Answers that are not success, in the same batches as
				// the writes beside them.
				wantErr(t, "FinishAudit twice "+name, s.FinishAudit(ctx(t), id, res), store.ErrConflict)
				wantErr(t, "FinishAudit of a missing record", s.FinishAudit(ctx(t), "missing-"+name, res), store.ErrNotFound)
				rec.ID, rec.Outcome, rec.Error, rec.ResultBytes = id, res.Outcome, res.Error, res.ResultBytes
				mu.Lock()
				if _, dup := want[id]; dup {
					t.Errorf("BeginAudit returned ID %s twice", id)
				}
				want[id] = rec
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	list, err := s.ListAudit(ctx(t), store.AuditFilter{Limit: 2 * callers * each})
	must(t, "ListAudit", err)
	got := map[string]store.AuditRecord{}
	for _, r := range list {
		got[r.ID] = r
	}
	diff(t, "records after concurrent calls", want, got, ignoreTimes)
}

// testRacingFinish finishes each record from two callers at once: exactly
// one wins, the other is told the record is no longer running, and the
// record holds the winner's result.
func testRacingFinish(t *testing.T, s store.Store) {
	for range 20 {
		id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "terminal"})
		must(t, "BeginAudit", err)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for k := range errs {
			wg.Go(func() {
				errs[k] = s.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeOK, ResultBytes: int64(k + 1)})
			})
		}
		wg.Wait()
		winner := -1
		for k, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = k
			case err == nil:
				t.Fatalf("both racing FinishAudit calls succeeded")
			default:
				wantErr(t, "losing FinishAudit", err, store.ErrConflict)
			}
		}
		if winner < 0 {
			t.Fatalf("no racing FinishAudit succeeded: %v", errs)
		}
		list, err := s.ListAudit(ctx(t), store.AuditFilter{Limit: 1})
		must(t, "ListAudit", err)
		if len(list) != 1 || list[0].ID != id || list[0].ResultBytes != int64(winner+1) {
			t.Fatalf("record after the race = %+v, want the winner's result %d", list, winner+1)
		}
	}
}

// testCancelledAudit checks that a call whose context has ended writes
// nothing and says why.
func testCancelledAudit(t *testing.T, s store.Store) {
	id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "kept"})
	must(t, "BeginAudit", err)
	done, cancel := context.WithCancel(ctx(t))
	cancel()
	_, err = s.BeginAudit(done, store.AuditRecord{Tool: "dropped"})
	wantErr(t, "BeginAudit with an ended context", err, context.Canceled)
	wantErr(t, "FinishAudit with an ended context", s.FinishAudit(done, id, store.AuditResult{Outcome: store.OutcomeOK}), context.Canceled)
	list, err := s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	if len(list) != 1 || list[0].ID != id || list[0].Outcome != store.OutcomeRunning {
		t.Errorf("records after cancelled calls = %+v, want only %s, still running", list, id)
	}
}

// CloseWhileWriting closes a store while callers are beginning and
// finishing calls on it, as a service stopping under load does. before and
// after must be two stores on the same, empty database; CloseWhileWriting
// closes before. Every call must either succeed, with its write kept, or
// fail without writing; calls after Close fail; and after sees every record
// whose BeginAudit succeeded, finished exactly when FinishAudit succeeded.
func CloseWhileWriting(t *testing.T, before, after store.Store) {
	t.Helper()
	const callers = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		begun    = map[string]bool{} // ID: whether FinishAudit succeeded
		started  atomic.Int64
		closeNow = make(chan struct{})
		once     sync.Once
	)
	for i := range callers {
		wg.Go(func() {
			for j := 0; ; j++ {
				id, err := before.BeginAudit(ctx(t), store.AuditRecord{Tool: fmt.Sprintf("t%d_%d", i, j)})
				if err != nil {
					return // closed
				}
				mu.Lock()
				begun[id] = false
				mu.Unlock()
				if started.Add(1) == 4*callers {
					once.Do(func() { close(closeNow) })
				}
				if err := before.FinishAudit(ctx(t), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
					return
				}
				mu.Lock()
				begun[id] = true
				mu.Unlock()
			}
		})
	}
	<-closeNow
	must(t, "Close while writing", before.Close())
	wg.Wait()
	_, err := before.BeginAudit(ctx(t), store.AuditRecord{Tool: "late"})
	if err == nil {
		t.Error("BeginAudit after Close succeeded")
	}

	list, err := after.ListAudit(ctx(t), store.AuditFilter{Limit: 10 * len(begun)})
	must(t, "ListAudit", err)
	got := map[string]bool{}
	for _, r := range list {
		if r.Outcome != store.OutcomeOK && r.Outcome != store.OutcomeRunning {
			t.Errorf("record %s is %s", r.ID, r.Outcome)
		}
		got[r.ID] = r.Outcome == store.OutcomeOK
	}
	diff(t, "records after Close (ID: finished)", begun, got)
}
