package sqlstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// laterStore is a store whose audit finishes can be queued without
// waiting for their commit.
type laterStore interface {
	queueStore
	FinishAuditLater(id string, res store.AuditResult, done func(error))
}

// finishLater queues res for id and returns the channel its outcome
// arrives on.
func finishLater(s laterStore, id string, res store.AuditResult) <-chan error {
	ch := make(chan error, 1)
	s.FinishAuditLater(id, res, func(err error) { ch <- err })
	return ch
}

func outcomeOf(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(time.Minute):
		t.Fatal("a finish queued by FinishAuditLater was never committed")
		return nil
	}
}

// TestFinishAuditLater: a finish nobody waits for is committed by the
// committer's timer when no other write comes, is seen by ListAudit as
// soon as it is queued, and a second finish of the same record is a
// conflict, as with FinishAudit.
func TestFinishAuditLater(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			raw, rawDB := be.open(t)
			s := raw.(laterStore)
			ctx := t.Context()

			// Alone: the timer commits it.
			id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "alone"})
			if err != nil {
				t.Fatal(err)
			}
			if err := outcomeOf(t, finishLater(s, id, store.AuditResult{Outcome: store.OutcomeOK, ResultBytes: 7})); err != nil {
				t.Fatal(err)
			}
			var outcome string
			var n int64
			if err := rawDB.QueryRowContext(ctx, rebind(be.name, `SELECT outcome, result_bytes FROM audit WHERE id = ?`), id).Scan(&outcome, &n); err != nil {
				t.Fatal(err)
			}
			if outcome != string(store.OutcomeOK) || n != 7 {
				t.Errorf("after the timer's commit the record is %s with %d result bytes, want ok with 7", outcome, n)
			}
			if err := outcomeOf(t, finishLater(s, id, store.AuditResult{Outcome: store.OutcomeError})); !errors.Is(err, store.ErrConflict) {
				t.Errorf("finishing twice: %v, want ErrConflict", err)
			}

			// Read at once: ListAudit sees every finish queued before it.
			var ids []string
			var chans []<-chan error
			for range 5 {
				id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "listed"})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			for _, id := range ids {
				chans = append(chans, finishLater(s, id, store.AuditResult{Outcome: store.OutcomeToolError, Error: "no"}))
			}
			recs, err := s.ListAudit(ctx, store.AuditFilter{Tool: "listed"})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(ids) {
				t.Fatalf("listed %d records, want %d", len(recs), len(ids))
			}
			for _, r := range recs {
				if r.Outcome != store.OutcomeToolError || r.Error != "no" {
					t.Errorf("record %s listed as %s (%q), want its queued finish", r.ID, r.Outcome, r.Error)
				}
			}
			for _, ch := range chans {
				if err := outcomeOf(t, ch); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestFinishLaterWaitsForCommit: a finish queued while a batch waits for
// the write lock is reported only once it is committed, after the lock
// is released.
func TestFinishLaterWaitsForCommit(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			raw, rawDB := be.open(t)
			s := raw.(laterStore)
			ctx := t.Context()
			id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "first"})
			if err != nil {
				t.Fatal(err)
			}
			release := be.block(t, rawDB)
			// The next begin leads a batch that waits for the lock.
			begun := make(chan error, 1)
			go func() {
				_, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "second"})
				begun <- err
			}()
			waitQueue(t, s, 1, 0)
			done := finishLater(s, id, store.AuditResult{Outcome: store.OutcomeOK})
			// Its commit waits for the batch under way to end: nothing is
			// written while the lock is held.
			select {
			case err := <-done:
				t.Fatalf("a finish was reported (%v) while the audit table was locked", err)
			case <-time.After(50 * time.Millisecond):
			}
			release()
			if err := <-begun; err != nil {
				t.Fatal(err)
			}
			if err := outcomeOf(t, done); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCloseCommitsLater: Close commits the finishes still queued.
func TestCloseCommitsLater(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			raw, rawDB := be.open(t)
			s := raw.(laterStore)
			ctx := t.Context()
			id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "closing"})
			if err != nil {
				t.Fatal(err)
			}
			done := finishLater(s, id, store.AuditResult{Outcome: store.OutcomeOK})
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := outcomeOf(t, done); err != nil {
				t.Fatal(err)
			}
			var outcome string
			if err := rawDB.QueryRowContext(ctx, rebind(be.name, `SELECT outcome FROM audit WHERE id = ?`), id).Scan(&outcome); err != nil {
				t.Fatal(err)
			}
			if outcome != string(store.OutcomeOK) {
				t.Errorf("after Close the record is %s, want ok", outcome)
			}
			if err := outcomeOf(t, finishLater(s, id, store.AuditResult{Outcome: store.OutcomeOK})); err == nil {
				t.Error("a finish queued after Close was reported written")
			}
		})
	}
}

func rebind(backend, q string) string {
	if backend == "postgres" {
		return strings.Replace(q, "?", "$1", 1)
	}
	return q
}
