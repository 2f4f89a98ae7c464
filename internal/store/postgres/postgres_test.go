package postgres_test

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// schemaDSN returns the DSN of a throw-away schema; see
// storetest.PostgresSchema.
func schemaDSN(t testing.TB) string { return storetest.PostgresSchema(t) }

func open(t *testing.T, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	// Registered after schemaDSN's cleanup, so it runs before the drop.
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	storetest.PostgresAdmin(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, schemaDSN(t))
	})
}

func TestRestart(t *testing.T) {
	dsn := schemaDSN(t)
	storetest.Restart(t, open(t, dsn), open(t, dsn))
}

func TestCloseWhileWriting(t *testing.T) {
	dsn := schemaDSN(t)
	storetest.CloseWhileWriting(t, open(t, dsn), open(t, dsn))
}

// TestCrash kills a process that is auditing calls: every record its
// BeginAudit returned, and every finish its FinishAudit returned, is in
// the database afterwards.
func TestCrash(t *testing.T) {
	dsn := schemaDSN(t)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashEnv+"="+dsn)
	storetest.Crash(t, child, 100, func() store.Store { return open(t, dsn) })
}

// TestLiveReplicaNotInterrupted checks that a replica starting up leaves the
// running calls of another live replica alone.
func TestLiveReplicaNotInterrupted(t *testing.T) {
	dsn := schemaDSN(t)
	a, b := open(t, dsn), open(t, dsn)
	id, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "terminal"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.InterruptRunning(t.Context())
	if err != nil || n != 0 {
		t.Fatalf("InterruptRunning = %d, %v; want 0 while the other replica lives", n, err)
	}
	if err := a.FinishAudit(t.Context(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
		t.Errorf("FinishAudit on the live replica: %v", err)
	}
}

// TestReplicas runs two replicas on one schema: concurrent appends keep
// Seqs gapless and only one replica decides an approval.
func TestReplicas(t *testing.T) {
	dsn := schemaDSN(t)
	a, b := open(t, dsn), open(t, dsn)
	ctx := t.Context()
	c, err := a.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	ap, err := a.CreateApproval(ctx, store.Approval{ConversationID: c.ID, Tool: "terminal"})
	if err != nil {
		t.Fatal(err)
	}
	const each = 20
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins int
	)
	for _, s := range []store.Store{a, b, a, b} {
		wg.Go(func() {
			for range each {
				if _, err := s.AppendMessages(ctx, c.ID, store.Message{Message: userText("hi")}); err != nil {
					t.Errorf("AppendMessages: %v", err)
					return
				}
			}
			_, err := s.DecideApproval(ctx, ap.ID, store.Decision{State: store.ApprovalApproved})
			switch {
			case err == nil:
				mu.Lock()
				wins++
				mu.Unlock()
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("DecideApproval: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d replicas decided the approval, want 1", wins)
	}
	msgs, err := b.ListMessages(ctx, c.ID, store.MessageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has Seq %d", i, m.Seq)
		}
	}
	if len(msgs) != 4*each {
		t.Errorf("%d messages, want %d", len(msgs), 4*each)
	}
}

// TestMigrations checks that replicas opening a new schema together apply
// the migrations once, that reopening changes nothing, and that a schema
// from a newer Switchboard is refused.
func TestMigrations(t *testing.T) {
	dsn := schemaDSN(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			db, err := postgres.Open(t.Context(), dsn, nil)
			if err != nil {
				t.Errorf("concurrent Open: %v", err)
				return
			}
			_ = db.Close()
		})
	}
	wg.Wait()
	db := open(t, dsn)
	if v, err := db.SchemaVersion(t.Context()); err != nil || v != storetest.LatestMigration(t, os.DirFS("migrations")) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, storetest.LatestMigration(t, os.DirFS("migrations")))
	}
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (99, '0099_future.sql')`); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(t.Context(), dsn, nil)
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema: %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "upgrade Switchboard") {
		t.Errorf("error %q should say what to do", err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct{ name, dsn string }{
		{"empty", ""},
		{"malformed", "postgres://user:secret@[::1"},
		{"unreachable", "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := postgres.Open(t.Context(), tc.dsn, nil)
			if err == nil {
				_ = db.Close()
				t.Fatal("Open succeeded")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q leaks the password", err)
			}
		})
	}
}
