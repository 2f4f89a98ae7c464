package sqlstore

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestJournalMovesStayFew: with more calls running than a move's
// threshold holds, finishing them does not move the journal at every
// finish (each move rewrites every running call: quadratic), and in the
// steady state after, the journal still moves and stays small.
func TestJournalMovesStayFew(t *testing.T) {
	j, err := openJournal(filepath.Join(t.TempDir(), "s.db-begun-"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	rec := func(i int) store.AuditRecord {
		return store.AuditRecord{
			ID: "call-" + strconv.Itoa(i), Time: time.Unix(1, 0), User: "alice", Tool: "files__read",
			Server: "files", Arguments: []byte(`{"path":"/some/longer/path/to/a/file/to/make/the/line/longer.txt"}`), Outcome: store.OutcomeRunning,
		}
	}
	moves := 0
	finish := func(i int) {
		cur := j.cur
		j.finished("call-" + strconv.Itoa(i))
		if j.cur != cur {
			moves++
		}
	}
	const running = 8000 // past compactAt in lines
	for i := range running {
		if err := j.begin(rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	if j.size <= compactAt {
		t.Fatalf("%d running calls take %d bytes; the test needs more than %d", running, j.size, compactAt)
	}
	for i := range running {
		finish(i)
	}
	if moves > 3 {
		t.Errorf("finishing %d running calls moved the journal %d times; want a few", running, moves)
	}
	moves = 0
	for i := running; i < 5*running; i++ {
		if err := j.begin(rec(i)); err != nil {
			t.Fatal(err)
		}
		finish(i)
	}
	if moves == 0 || j.size > 2*compactAt {
		t.Errorf("steady state: %d moves, %d bytes; want moves and a journal under %d bytes", moves, j.size, 2*compactAt)
	}
}
