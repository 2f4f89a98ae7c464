package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// These tests drive the group commit into a known shape on real
// databases: another connection holds the write lock, so that the first
// write's batch waits in the database while the next writes queue behind
// it, and the test releases the lock once they are all queued. The next
// batch then holds every one of them.

// queueStore is a store whose audit queue the test can watch
// (export_test.go).
type queueStore interface {
	store.Store
	AuditQueue() (inBatch, queued int)
}

// backend is a database to run the group commit tests on.
type backend struct {
	name string
	// open returns a store on a new, empty database, and another handle on
	// the same database for the test's own statements.
	open func(t *testing.T) (queueStore, *sql.DB)
	// refuse makes the database refuse audit records whose tool is
	// "refused" and finishes whose error is "refused", as a database
	// refuses a write it cannot make.
	refuse []string
	// block takes the audit table's write lock on raw and returns the
	// function that releases it.
	block func(t *testing.T, raw *sql.DB) (release func())
}

func backends() []backend {
	return []backend{
		{
			name: "sqlite",
			open: func(t *testing.T) (queueStore, *sql.DB) {
				path := filepath.Join(t.TempDir(), "switchboard.db")
				// The test holds the lock for as long as it takes to queue
				// writes behind it; the store must wait, not fail. Begins
				// go through the committer, as on PostgreSQL, so that
				// these tests shape batches with them; journal_test.go
				// covers the journal.
				s, err := sqlite.Open(t.Context(), path, &sqlite.Options{BusyTimeout: 2 * time.Minute, BeginsInTable: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s, rawDB(t, "sqlite", path)
			},
			refuse: []string{
				`CREATE TRIGGER refuse_begin BEFORE INSERT ON audit WHEN NEW.tool = 'refused' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
				`CREATE TRIGGER refuse_finish BEFORE UPDATE ON audit WHEN NEW.error = 'refused' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
			},
			block: func(t *testing.T, raw *sql.DB) func() {
				conn, err := raw.Conn(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
					t.Fatal(err)
				}
				return func() {
					if _, err := conn.ExecContext(t.Context(), `ROLLBACK`); err != nil {
						t.Error(err)
					}
					_ = conn.Close()
				}
			},
		},
		{
			name: "postgres",
			open: func(t *testing.T) (queueStore, *sql.DB) {
				dsn := storetest.PostgresSchema(t)
				s, err := postgres.Open(t.Context(), dsn, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s, rawDB(t, "pgx", dsn)
			},
			refuse: []string{
				`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
					IF NEW.tool = 'refused' OR NEW.error = 'refused' THEN
						RAISE EXCEPTION 'refused by the test';
					END IF;
					RETURN NEW;
				END $$`,
				`CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON audit FOR EACH ROW EXECUTE FUNCTION refuse()`,
			},
			block: func(t *testing.T, raw *sql.DB) func() {
				tx, err := raw.BeginTx(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(t.Context(), `LOCK TABLE audit IN EXCLUSIVE MODE`); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := tx.Rollback(); err != nil {
						t.Error(err)
					}
				}
			},
		},
	}
}

func rawDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// waitQueue waits until s's audit queue has the given shape.
func waitQueue(t *testing.T, s queueStore, inBatch, queued int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		b, q := s.AuditQueue()
		if b == inBatch && q == queued {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit queue is %d in batch, %d queued; want %d and %d", b, q, inBatch, queued)
		}
		runtime.Gosched()
	}
}

// outcome is what one call returned.
type outcome struct {
	id  string
	err error
}

// beginAsync begins rec on its own goroutine; the result arrives on the
// returned channel.
func beginAsync(ctx context.Context, s store.Store, rec store.AuditRecord) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		id, err := s.BeginAudit(ctx, rec)
		ch <- outcome{id, err}
	}()
	return ch
}

func finishAsync(ctx context.Context, s store.Store, id string, res store.AuditResult) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() { ch <- outcome{id, s.FinishAudit(ctx, id, res)} }()
	return ch
}

// outcomes maps the IDs of s's audit records to their outcomes, and fails
// t if a refused record was kept.
func outcomes(t *testing.T, s store.Store) map[string]store.Outcome {
	t.Helper()
	list, err := s.ListAudit(t.Context(), store.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.Outcome{}
	for _, r := range list {
		if r.Tool == "refused" {
			t.Errorf("a refused record was kept: %+v", r)
		}
		m[r.ID] = r.Outcome
	}
	return m
}

// TestRefusedWriteInBatch puts writes the database refuses in one batch
// with writes it accepts: the batch fails as a whole, and each write is
// then made alone, so the refused ones fail by themselves and every other
// caller gets its own answer.
func TestRefusedWriteInBatch(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s, raw := b.open(t)
			ctx := t.Context()
			var pre []string
			for range 3 {
				id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "pre"})
				if err != nil {
					t.Fatal(err)
				}
				pre = append(pre, id)
			}
			for _, q := range b.refuse {
				if _, err := raw.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}

			release := b.block(t, raw)
			lead := beginAsync(ctx, s, store.AuditRecord{Tool: "lead"})
			waitQueue(t, s, 1, 0)
			ok := store.AuditResult{Outcome: store.OutcomeOK}
			refused := store.AuditResult{Outcome: store.OutcomeError, Error: "refused"}
			// The calls of the next batch, in the order they queue.
			calls := []struct {
				name string
				run  func() <-chan outcome
				want error // nil, or the sentinel the error must wrap
				fail bool  // fails with a database error
			}{
				{name: "begin", run: func() <-chan outcome { return beginAsync(ctx, s, store.AuditRecord{Tool: "good"}) }},
				{name: "begin refused", run: func() <-chan outcome { return beginAsync(ctx, s, store.AuditRecord{Tool: "refused"}) }, fail: true},
				{name: "finish refused", run: func() <-chan outcome { return finishAsync(ctx, s, pre[0], refused) }, fail: true},
				{name: "finish", run: func() <-chan outcome { return finishAsync(ctx, s, pre[1], ok) }},
				{name: "finish missing", run: func() <-chan outcome { return finishAsync(ctx, s, "missing", ok) }, want: store.ErrNotFound},
				{name: "begin again", run: func() <-chan outcome { return beginAsync(ctx, s, store.AuditRecord{Tool: "good"}) }},
				{name: "finish after refused ones", run: func() <-chan outcome { return finishAsync(ctx, s, pre[2], ok) }},
			}
			results := make([]<-chan outcome, len(calls))
			for i, c := range calls {
				results[i] = c.run()
				waitQueue(t, s, 1, i+1)
			}
			release()

			if o := <-lead; o.err != nil {
				t.Fatalf("the first batch's BeginAudit: %v", o.err)
			}
			begun := map[string]bool{}
			for i, c := range calls {
				o := <-results[i]
				switch {
				case c.fail:
					if o.err == nil || !strings.Contains(o.err.Error(), "refused by the test") {
						t.Errorf("%s: error %v, want the database's refusal", c.name, o.err)
					}
				case c.want != nil:
					if !errors.Is(o.err, c.want) {
						t.Errorf("%s: error %v, want one wrapping %v", c.name, o.err, c.want)
					}
				case o.err != nil:
					t.Errorf("%s: %v", c.name, o.err)
				case strings.HasPrefix(c.name, "begin"):
					begun[o.id] = true
				}
			}
			got := outcomes(t, s)
			for id := range begun {
				if got[id] != store.OutcomeRunning {
					t.Errorf("record begun beside refused ones is %q, want running", got[id])
				}
			}
			for i, want := range []store.Outcome{store.OutcomeRunning, store.OutcomeOK, store.OutcomeOK} {
				if got[pre[i]] != want {
					t.Errorf("record %d is %q after the batch, want %q", i, got[pre[i]], want)
				}
			}
			if len(got) != len(pre)+len(begun)+1 {
				t.Errorf("%d records, want %d", len(got), len(pre)+len(begun)+1)
			}
		})
	}
}

// TestCancelWhileQueued ends callers' contexts while their writes wait: a
// write still queued is dropped and its caller told so at once; a write
// already in a batch is committed, and its caller told that, because the
// database has it.
func TestCancelWhileQueued(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s, raw := b.open(t)
			release := b.block(t, raw)
			leadCtx, cancelLead := context.WithCancel(t.Context())
			lead := beginAsync(leadCtx, s, store.AuditRecord{Tool: "lead"})
			waitQueue(t, s, 1, 0)
			dropCtx, cancelDrop := context.WithCancel(t.Context())
			dropped := beginAsync(dropCtx, s, store.AuditRecord{Tool: "dropped"})
			waitQueue(t, s, 1, 1)
			kept := beginAsync(t.Context(), s, store.AuditRecord{Tool: "kept"})
			waitQueue(t, s, 1, 2)

			cancelDrop()
			// Answered while the database is still locked.
			if o := <-dropped; !errors.Is(o.err, context.Canceled) {
				t.Errorf("queued BeginAudit after cancel: %v, want context.Canceled", o.err)
			}
			cancelLead()
			release()
			l, k := <-lead, <-kept
			if l.err != nil || k.err != nil {
				t.Fatalf("BeginAudit in a batch: %v; queued: %v", l.err, k.err)
			}
			want := map[string]store.Outcome{l.id: store.OutcomeRunning, k.id: store.OutcomeRunning}
			got := outcomes(t, s)
			if len(got) != 2 || got[l.id] != want[l.id] || got[k.id] != want[k.id] {
				t.Errorf("records = %v, want %v (the cancelled, queued one dropped)", got, want)
			}
		})
	}
}

// TestCloseCommitsQueued closes the store while writes wait for a batch:
// Close returns once they are committed, and writes after it fail.
func TestCloseCommitsQueued(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s, raw := b.open(t)
			release := b.block(t, raw)
			lead := beginAsync(t.Context(), s, store.AuditRecord{Tool: "lead"})
			waitQueue(t, s, 1, 0)
			queued := []<-chan outcome{
				beginAsync(t.Context(), s, store.AuditRecord{Tool: "a"}),
				beginAsync(t.Context(), s, store.AuditRecord{Tool: "b"}),
			}
			waitQueue(t, s, 1, 2)
			closed := make(chan error, 1)
			go func() { closed <- s.Close() }()
			release()
			if err := <-closed; err != nil {
				t.Fatalf("Close: %v", err)
			}
			ids := []string{}
			for _, ch := range append(queued, lead) {
				o := <-ch
				if o.err != nil {
					t.Errorf("BeginAudit queued before Close: %v", o.err)
				}
				ids = append(ids, o.id)
			}
			if _, err := s.BeginAudit(t.Context(), store.AuditRecord{Tool: "late"}); err == nil {
				t.Error("BeginAudit after Close succeeded")
			}
			var n int
			q := `SELECT COUNT(*) FROM audit WHERE id IN (?, ?, ?)`
			if b.name == "postgres" {
				q = `SELECT COUNT(*) FROM audit WHERE id IN ($1, $2, $3)`
			}
			if err := raw.QueryRowContext(t.Context(), q, ids[0], ids[1], ids[2]).Scan(&n); err != nil || n != 3 {
				t.Errorf("%d of the 3 records queued before Close are in the database (%v)", n, err)
			}
		})
	}
}

// TestCancelInBatch ends a caller's context while its write is in a batch
// that waits in the database: the write is committed, so the caller must
// be told it succeeded, not that it was cancelled. Only PostgreSQL can
// hold a batch half-way (on a row lock); SQLite takes its lock before the
// first statement, where TestCancelWhileQueued covers it.
func TestCancelInBatch(t *testing.T) {
	s, raw := backends()[1].open(t)
	ctx := t.Context()
	// lockRow holds the row of a new record until the returned function
	// is called.
	lockRow := func() (id string, release func()) {
		id, err := s.BeginAudit(ctx, store.AuditRecord{Tool: "locked"})
		if err != nil {
			t.Fatal(err)
		}
		tx, err := raw.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM audit WHERE id = $1 FOR UPDATE`, id); err != nil {
			t.Fatal(err)
		}
		return id, func() {
			if err := tx.Rollback(); err != nil {
				t.Error(err)
			}
		}
	}
	first, releaseFirst := lockRow()
	second, releaseSecond := lockRow()
	ok := store.AuditResult{Outcome: store.OutcomeOK}

	lead := finishAsync(ctx, s, first, ok)
	waitQueue(t, s, 1, 0)
	// The next batch: a write, the one to cancel, and a finish that waits
	// for the second row lock.
	next := beginAsync(ctx, s, store.AuditRecord{Tool: "next"})
	waitQueue(t, s, 1, 1)
	cctx, cancel := context.WithCancel(ctx)
	cancelled := beginAsync(cctx, s, store.AuditRecord{Tool: "cancelled"})
	waitQueue(t, s, 1, 2)
	blocked := finishAsync(ctx, s, second, ok)
	waitQueue(t, s, 1, 3)
	releaseFirst()
	if o := <-lead; o.err != nil {
		t.Fatal(o.err)
	}
	waitQueue(t, s, 3, 0)
	cancel()
	releaseSecond()
	for _, ch := range []<-chan outcome{next, cancelled, blocked} {
		if o := <-ch; o.err != nil {
			t.Errorf("write in a batch, its context cancelled or not: %v", o.err)
		}
	}
	got := outcomes(t, s)
	if len(got) != 4 || got[first] != store.OutcomeOK || got[second] != store.OutcomeOK {
		t.Errorf("records = %v, want 4 with %s and %s finished", got, first, second)
	}
}

// TestPanicInBatch makes the driver panic in the middle of a batch, as a
// driver bug would: the panic reaches the caller that led the batch (where
// net/http, for one, recovers it), the other writes of the batch fail
// rather than wait forever, and the audit trail goes on working.
func TestPanicInBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	migrated, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrated.Close(); err != nil {
		t.Fatal(err)
	}
	w := rawDB(t, "sqlite", "file:"+path+"?_pragma=busy_timeout(60000)&_txlock=immediate")
	w.SetMaxOpenConns(1)
	db := sqlstore.New(w, w, "test", sqlstore.Dialect{
		Time:     func(t time.Time) any { return t.UnixMicro() },
		ToolArgs: func(a json.RawMessage) any { return string(a) },
		Classify: func(err error) error { return err },
		ToolMatch: func(glob string) (string, any) {
			return `tool GLOB ?`, glob
		},
		// A batch whose arguments hold "panic" panics.
		Pipeline: func(ctx context.Context, db *sql.DB, stmts []sqlstore.Stmt) error {
			for _, s := range stmts {
				if slices.Contains(s.Args, any("panic")) {
					panic("a driver bug")
				}
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			for i, s := range stmts {
				r, err := tx.ExecContext(ctx, s.Query, s.Args...)
				if err != nil {
					return err
				}
				if stmts[i].Rows, err = r.RowsAffected(); err != nil {
					return err
				}
			}
			return tx.Commit()
		},
	})
	t.Cleanup(func() { _ = db.Close() })

	ctx := t.Context()
	release := backends()[0].block(t, rawDB(t, "sqlite", path))
	lead := beginAsync(ctx, db, store.AuditRecord{Tool: "lead"})
	waitQueue(t, db, 1, 0)
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_, _ = db.BeginAudit(ctx, store.AuditRecord{Tool: "panic"})
	}()
	waitQueue(t, db, 1, 1)
	beside := beginAsync(ctx, db, store.AuditRecord{Tool: "good"})
	waitQueue(t, db, 1, 2)
	release()

	if o := <-lead; o.err != nil {
		t.Fatalf("the first batch: %v", o.err)
	}
	if p := <-panicked; p != "a driver bug" {
		t.Errorf("the caller that led the batch recovered %v, want the driver's panic", p)
	}
	// A broken hand-over leaves these waiting: fail rather than hang.
	within := func(ch <-chan outcome, what string) outcome {
		select {
		case o := <-ch:
			return o
		case <-time.After(time.Minute):
			t.Fatalf("%s still waits a minute after the panic", what)
			return outcome{}
		}
	}
	if o := within(beside, "the write beside the panic"); o.err == nil || !strings.Contains(o.err.Error(), "panicked") {
		t.Errorf("the write beside the panic: %v, want an error saying the driver panicked", o.err)
	}
	if o := within(beginAsync(ctx, db, store.AuditRecord{Tool: "after"}), "BeginAudit after the panic"); o.err != nil {
		t.Errorf("BeginAudit after the panic: %v", o.err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
