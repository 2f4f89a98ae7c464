package sqlite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// TestCrashFinishLater is TestCrash for finishes that callers do not
// wait for (FinishAuditLater, which the gate uses): every record begun is
// in the file after the kill, every finish reported committed is ok, and
// the records whose finish was still queued are marked interrupted at
// the next start, none left running.
func TestCrashFinishLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashLaterEnv+"="+path)
	after, running := storetest.Crash(t, child, 300, func() store.Store { return open(t, path) })
	if _, err := after.InterruptRunning(t.Context()); err != nil {
		t.Fatal(err)
	}
	recs, err := after.ListAudit(t.Context(), store.AuditFilter{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Outcome{}
	for _, r := range recs {
		got[r.ID] = r.Outcome
		if r.Outcome == store.OutcomeRunning {
			t.Errorf("record %s still running after InterruptRunning", r.ID)
		}
	}
	for _, id := range running {
		if o := got[id]; o != store.OutcomeInterrupted && o != store.OutcomeOK {
			t.Errorf("record %s, not reported finished at the crash, is %q after InterruptRunning", id, o)
		}
	}
}
