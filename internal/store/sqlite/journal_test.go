package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// journals lists the journals of calls begun beside the database at path.
func journals(t *testing.T, path string) []string {
	t.Helper()
	got, err := filepath.Glob(path + "-begun-*")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// outcomes lists s's records by ID.
func outcomes(t *testing.T, s store.Store) map[string]store.Outcome {
	t.Helper()
	recs, err := s.ListAudit(t.Context(), store.AuditFilter{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Outcome{}
	for _, r := range recs {
		out[r.ID] = r.Outcome
	}
	return out
}

// TestJournalAcrossProcesses: two stores on one file, as serve and a
// command beside it. A call running in one shows as running in the
// other, which must not interrupt it (its process is alive); once that
// process stops with the call still running, the next InterruptRunning
// records it as interrupted and removes its journal.
func TestJournalAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	a := open(t, path)
	b := open(t, path)

	id, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "terminal", User: "ann", Arguments: json.RawMessage(`{"cmd":"sleep 9"}`)})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := b.ListAudit(t.Context(), store.AuditFilter{User: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != id || recs[0].Outcome != store.OutcomeRunning || string(recs[0].Arguments) != `{"cmd":"sleep 9"}` {
		t.Fatalf("the other process lists %+v, want %s running with its arguments", recs, id)
	}
	if n, err := b.InterruptRunning(t.Context()); err != nil || n != 0 {
		t.Fatalf("InterruptRunning beside a live process: %d, %v; want 0 and its call left running", n, err)
	}
	if err := a.FinishAudit(t.Context(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
		t.Fatalf("finishing the call the other process saw: %v", err)
	}
	if o := outcomes(t, b)[id]; o != store.OutcomeOK {
		t.Fatalf("after the finish the other process sees %q, want ok", o)
	}

	left, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "terminal"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.InterruptRunning(t.Context()); err != nil || n != 1 {
		t.Fatalf("InterruptRunning after the process stopped: %d, %v; want 1", n, err)
	}
	if o := outcomes(t, b)[left]; o != store.OutcomeInterrupted {
		t.Errorf("the stopped process's running call is %q, want interrupted", o)
	}
	if got := journals(t, path); len(got) != 2 {
		t.Errorf("journal files left: %v, want only the live process's two", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := journals(t, path); len(got) != 0 {
		t.Errorf("journals left after every process closed with nothing running: %v", got)
	}
}

// TestJournalCompaction: a journal past its size is rewritten with the
// calls still running, and nothing else; a running call survives any
// number of rewrites, for the other process to see and, once its
// process is gone, to record as interrupted.
func TestJournalCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	a := open(t, path)
	b := open(t, path)
	keep, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"blob":"` + strings.Repeat("x", 16<<10) + `"}`)
	for range 300 { // about 6 MB of lines: several rewrites
		id, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "big", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.FinishAudit(t.Context(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
			t.Fatal(err)
		}
	}
	mine := journals(t, path)
	var size int64
	for _, p := range mine {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The space reserved past the last line reads as zeros.
		size += int64(len(bytes.TrimRight(data, "\x00")))
	}
	if size > 3<<20 {
		t.Errorf("journals hold %d bytes of lines after 300 finished calls of 16 KiB, want them moved well under the 6 MB written", size)
	}
	// A line longer than the space mapped for the journal.
	huge := json.RawMessage(`{"blob":"` + strings.Repeat("z", 3<<20) + `"}`)
	big, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "huge", Arguments: huge})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := b.ListAudit(t.Context(), store.AuditFilter{Tool: "huge"})
	if err != nil || len(recs) != 1 || recs[0].ID != big || len(recs[0].Arguments) != len(huge) {
		t.Fatalf("the other process lists the 3 MiB call as %d records (%v), want it whole", len(recs), err)
	}
	if err := a.FinishAudit(t.Context(), big, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
		t.Fatal(err)
	}
	got := outcomes(t, b)
	if got[keep] != store.OutcomeRunning {
		t.Fatalf("the running call after rewrites is %q to the other process, want running", got[keep])
	}
	if len(got) != 302 {
		t.Errorf("the other process lists %d records, want 302", len(got))
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.InterruptRunning(t.Context()); err != nil || n != 1 {
		t.Fatalf("InterruptRunning: %d, %v; want the one running call", n, err)
	}
	if o := outcomes(t, b)[keep]; o != store.OutcomeInterrupted {
		t.Errorf("the running call is %q, want interrupted", o)
	}
}

// TestJournalRewriteNotMistakenForDead attacks the journal's moves
// between its two files: while one process moves its journal again and
// again with a call running, another calls InterruptRunning as fast as
// it can. The running call must never be recorded as interrupted, nor
// lost: a file emptied or being filled must not pass for a dead one.
func TestJournalRewriteNotMistakenForDead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	a := open(t, path)
	b := open(t, path)
	keep, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	var (
		stop        atomic.Bool
		wg          sync.WaitGroup
		interrupted atomic.Int64
		rounds      atomic.Int64
	)
	wg.Go(func() {
		for !stop.Load() {
			n, err := b.InterruptRunning(t.Context())
			if err != nil {
				t.Errorf("InterruptRunning: %v", err)
				return
			}
			interrupted.Add(n)
			rounds.Add(1)
		}
	})
	args := json.RawMessage(`{"blob":"` + strings.Repeat("y", 64<<10) + `"}`)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 600 && time.Now().Before(deadline); i++ { // a move every 12 calls
		id, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "big", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.FinishAudit(t.Context(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := interrupted.Load(); n != 0 {
		t.Fatalf("InterruptRunning recorded %d calls of a live process as interrupted (in %d rounds)", n, rounds.Load())
	}
	if err := a.FinishAudit(t.Context(), keep, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
		t.Fatalf("finishing the call kept through %d rounds of InterruptRunning: %v", rounds.Load(), err)
	}
	t.Logf("%d rounds of InterruptRunning during the rewrites", rounds.Load())
}

// TestJournalDeadAndTorn: a journal left by a process that died in the
// middle of a write (the last line cut short) and holding lines that are
// not records: the whole records become interrupted, the rest is
// skipped, and the journal is removed.
func TestJournalDeadAndTorn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	b := open(t, path)
	at := time.Now().UnixMicro()
	content := "\n" + `{"id":"rec-1","t":` + jsonInt(at) + `,"u":"ann","tool":"files__write","s":"files","a":"eyJwYXRoIjoiYS50eHQifQ=="}` +
		"\n" + `{"id":"no-tool","t":1}` +
		"\n" + `not json at all` +
		"\n" + `{"id":"rec-2","t":` + jsonInt(at+1) + `,"tool":"terminal"}` +
		"\n" + `{"id":"rec-3","t":` + jsonInt(at+2) + `,"tool":"cut sh`
	dead := path + "-begun-0000dead"
	if err := os.WriteFile(dead, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, err := b.ListAudit(t.Context(), store.AuditFilter{Outcome: store.OutcomeRunning})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "rec-2" || recs[1].ID != "rec-1" {
		t.Fatalf("running before the restart: %+v, want rec-2 and rec-1", recs)
	}
	n, err := b.InterruptRunning(t.Context())
	if err != nil || n != 2 {
		t.Fatalf("InterruptRunning: %d, %v; want 2", n, err)
	}
	recs, err = b.ListAudit(t.Context(), store.AuditFilter{Tool: "files__*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Outcome != store.OutcomeInterrupted || recs[0].User != "ann" || string(recs[0].Arguments) != `{"path":"a.txt"}` {
		t.Errorf("recovered record: %+v", recs)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead journal is still there: %v", err)
	}
	if n, err := b.InterruptRunning(t.Context()); err != nil || n != 0 {
		t.Errorf("InterruptRunning again: %d, %v; want 0", n, err)
	}
}

func jsonInt(v int64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFilterGlobMatchesSQLite: a journal's running calls are filtered in
// Go, the table's by SQLite's GLOB; both must select the same tools.
// SQLite is the reference: every pattern is asked of it and of the
// filter.
func TestFilterGlobMatchesSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	names := []string{
		"", "a", "files__read", "files_read", "Files__read", "files__rea", "mail__send", "a*b", "a?b", "x[y]z",
		"héllo", "h_llo", "aaa", "ab", "ba", "abab", "日本語", "日本", "files__read__x",
	}
	globs := []string{
		"*", "?", "files__*", "files_read", "Files*", "files__rea?", "*read", "*_*", "a*b", "a?b", "*a*a*",
		"h?llo", "h*llo", "x[y]z", "日?語", "??", "???", "*?", "?*?", "a**", "", "*b*a*",
	}
	for _, g := range globs {
		for _, n := range names {
			if g == "" {
				continue // an empty filter matches everything, in SQL by omission
			}
			f := store.AuditFilter{Tool: g}
			r := store.AuditRecord{Tool: n}
			want := sqliteGlob(t, db, g, n)
			if got := f.Match(&r); got != want {
				t.Errorf("tool %q against glob %q: filter says %v, SQLite %v", n, g, got, want)
			}
		}
	}
}

// sqliteGlob asks SQLite whether name matches the store's glob g, as
// ListAudit's query does.
func sqliteGlob(t *testing.T, db *sql.DB, g, name string) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRowContext(t.Context(), `SELECT ? GLOB ?`, name, sqlite.GlobPattern(g)).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestJournaledFinishesInOneStatement: finishes queued together are
// written many rows to a statement (sixty-four). Every field must land in its own
// row, and a finish given twice in the same batch (the second must be
// refused) must not cost the others theirs.
func TestJournaledFinishesInOneStatement(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "switchboard.db"))
	const n, dup = 160, 100
	ids := make([]string, n)
	for i := range ids {
		id, err := db.BeginAudit(t.Context(), store.AuditRecord{
			Tool: "t", User: "u" + strconv.Itoa(i), Arguments: json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`), Approval: store.AuditAutoApproved,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	var (
		mu       sync.Mutex
		results  = map[string][]error{}
		finished sync.WaitGroup
	)
	finish := func(i int) {
		finished.Add(1)
		db.FinishAuditLater(ids[i], store.AuditResult{Outcome: store.OutcomeToolError, Error: "e" + strconv.Itoa(i), Duration: time.Duration(i) * time.Millisecond, ResultBytes: int64(i)},
			func(err error) {
				mu.Lock()
				results[ids[i]] = append(results[ids[i]], err)
				mu.Unlock()
				finished.Done()
			})
	}
	// A first batch of clean finishes, one statement of sixty-four; then
	// a batch whose first statement holds a call finished twice.
	for i := range 64 {
		finish(i)
	}
	finished.Wait()
	for i := 64; i < n; i++ {
		finish(i)
		if i == 120 {
			finish(dup) // the same call finished again, in the same batch
		}
	}
	finished.Wait()
	recs, err := db.ListAudit(t.Context(), store.AuditFilter{Limit: n})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]store.AuditRecord{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for i, id := range ids {
		errs := results[id]
		want := 1
		if i == dup {
			want = 2
		}
		if len(errs) != want {
			t.Errorf("call %d was told %d outcomes, want %d", i, len(errs), want)
			continue
		}
		if errs[0] != nil {
			t.Errorf("call %d: the first finish failed: %v", i, errs[0])
		}
		if i == dup && !errors.Is(errs[1], store.ErrConflict) {
			t.Errorf("call %d's second finish: %v, want a conflict", i, errs[1])
		}
		r := byID[id]
		s := strconv.Itoa(i)
		if r.Outcome != store.OutcomeToolError || r.User != "u"+s || string(r.Arguments) != `{"i":`+s+`}` || r.Error != "e"+s ||
			r.DurationMS != int64(i) || r.ResultBytes != int64(i) || r.Approval != store.AuditAutoApproved {
			t.Errorf("call %d's row: %+v", i, r)
		}
	}
}

// TestJournalFollowsMovedDirectory: the person moves the data directory
// while the database is open (serve keeps running on it). The journals
// move with it: listing, finishing, and another process's recovery all
// go on in the new place.
func TestJournalFollowsMovedDirectory(t *testing.T) {
	root := t.TempDir()
	a := open(t, filepath.Join(root, "data", "switchboard.db"))
	id, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "before"})
	if err != nil {
		t.Fatal(err)
	}
	// SQLite's connections are opened by path: a serving process has
	// its readers open before any move, as this one now has.
	outcomes(t, a)
	if err := os.Rename(filepath.Join(root, "data"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if o := outcomes(t, a)[id]; o != store.OutcomeRunning {
		t.Fatalf("after the move the running call is %q, want running", o)
	}
	if err := a.FinishAudit(t.Context(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
		t.Fatal(err)
	}
	left, err := a.BeginAudit(t.Context(), store.AuditRecord{Tool: "after"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "moved", "switchboard.db")
	b := open(t, path)
	if got := outcomes(t, b); got[id] != store.OutcomeOK || got[left] != store.OutcomeRunning {
		t.Fatalf("another process at the new place sees %v; want %s ok and %s running", got, id, left)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.InterruptRunning(t.Context()); err != nil || n != 1 {
		t.Fatalf("InterruptRunning after the moved process stopped: %d, %v; want 1", n, err)
	}
	if got := journals(t, path); len(got) != 2 {
		t.Errorf("journal files at the new place: %v, want only the live process's two", got)
	}
}

// bigArgs begins every record with 64 KiB of arguments, so that the
// journal moves between its files every dozen calls.
type bigArgs struct{ *sqlite.DB }

func (b bigArgs) BeginAudit(ctx context.Context, r store.AuditRecord) (string, error) {
	r.Arguments = json.RawMessage(`{"blob":"` + strings.Repeat("b", 64<<10) + `"}`)
	return b.DB.BeginAudit(ctx, r)
}

// TestCrashWhileJournalMoves is TestCrash with calls whose lines fill the
// journal's file every dozen calls: the kill lands while the journal
// moves between its two files, or just after. Every call reported begun
// must be there after the kill, every one reported finished ok, and
// InterruptRunning must leave none running.
func TestCrashWhileJournalMoves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashBigEnv+"="+path)
	after, running := storetest.Crash(t, child, 400, func() store.Store { return open(t, path) })
	if _, err := after.InterruptRunning(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := outcomes(t, after)
	for id, o := range got {
		if o == store.OutcomeRunning {
			t.Errorf("record %s still running after InterruptRunning", id)
		}
	}
	for _, id := range running {
		if o := got[id]; o != store.OutcomeInterrupted && o != store.OutcomeOK {
			t.Errorf("record %s, not reported finished at the crash, is %q after InterruptRunning", id, o)
		}
	}
}
