package sqlite_test

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

func open(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "switchboard.db"))
	})
}

func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	before := open(t, path)
	after := open(t, path)
	storetest.Restart(t, before, after)
}

func TestCloseWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	storetest.CloseWhileWriting(t, open(t, path), open(t, path))
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "switchboard.db")
	db := open(t, path)
	c, err := db.CreateConversation(t.Context(), store.Conversation{Title: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := db.GetConversation(t.Context(), c.ID); err == nil {
		t.Error("GetConversation after Close succeeded")
	}

	// Opening again runs no migration twice and keeps the data.
	for range 2 {
		db = open(t, path)
		got, err := db.GetConversation(t.Context(), c.ID)
		if err != nil {
			t.Fatalf("after reopen: %v", err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("conversation after reopen mismatch (-want +got):\n%s", diff)
		}
		v, err := db.SchemaVersion(t.Context())
		if err != nil || v != storetest.LatestMigration(t, os.DirFS("migrations")) {
			t.Errorf("SchemaVersion = %d, %v; want %d", v, err, storetest.LatestMigration(t, os.DirFS("migrations")))
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db := open(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, '0099_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(t.Context(), path, nil)
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer database: %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "99") || !strings.Contains(err.Error(), "upgrade Switchboard") {
		t.Errorf("error %q should name the version and say what to do", err)
	}
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "odd ?#% name.db")
	db := open(t, path)
	if _, err := db.CreateConversation(t.Context(), store.Conversation{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700 | os.ModeDir}, {path, 0o600}} {
		fi, err := os.Stat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.path, fi.Mode(), tc.want)
		}
	}
	// The file name was taken literally, not as URI syntax.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "odd ?#% name.db") {
			t.Errorf("unexpected file %q in the database directory", e.Name())
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("this is not a database, it is a long enough text file to have a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"empty path", ""},
		{"not a database", notDB},
		{"directory", dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sqlite.Open(t.Context(), tc.path, nil)
			if err == nil {
				_ = db.Close()
				t.Fatalf("Open(%q) succeeded", tc.path)
			}
		})
	}
}

// TestCrash kills a process that is auditing calls: every record its
// BeginAudit returned is in the file afterwards (WAL with
// synchronous=NORMAL is durable when a process dies), and the next start
// marks those left running interrupted.
func TestCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashEnv+"="+path)
	after, running := storetest.Crash(t, child, 300, func() store.Store { return open(t, path) })
	n, err := after.InterruptRunning(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := after.ListAudit(t.Context(), store.AuditFilter{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Outcome{}
	var interrupted int64
	for _, r := range recs {
		got[r.ID] = r.Outcome
		switch r.Outcome {
		case store.OutcomeInterrupted:
			interrupted++
		case store.OutcomeRunning:
			t.Errorf("record %s still running after InterruptRunning", r.ID)
		}
	}
	// A record reported running may have finished before the kill.
	for _, id := range running {
		if o := got[id]; o != store.OutcomeInterrupted && o != store.OutcomeOK {
			t.Errorf("record %s, running at the crash, is %q after InterruptRunning", id, o)
		}
	}
	if n != interrupted {
		t.Errorf("InterruptRunning marked %d records; %d are interrupted", n, interrupted)
	}
}
