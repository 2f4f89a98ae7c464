package storetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// CrashChild is the process Crash kills: it begins and finishes audit
// records on s from 16 goroutines, forever, and writes "begun ID" as soon
// as BeginAudit returns and "finished ID" as soon as FinishAudit does, one
// line each, unbuffered, to w. It returns only if a call fails.
func CrashChild(s store.Store, w io.Writer) error {
	var (
		mu   sync.Mutex
		errs = make(chan error, 16)
	)
	say := func(what, id string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s %s\n", what, id)
	}
	// The goroutines end with the process, which is what this is for.
	for i := range 16 {
		go func() {
			for j := 0; ; j++ {
				id, err := s.BeginAudit(context.Background(), store.AuditRecord{Tool: fmt.Sprintf("t%d_%d", i, j)})
				if err != nil {
					errs <- err
					return
				}
				say("begun", id)
				if err := s.FinishAudit(context.Background(), id, store.AuditResult{Outcome: store.OutcomeOK}); err != nil {
					errs <- err
					return
				}
				say("finished", id)
			}
		}()
	}
	return <-errs
}

// Crash checks that the audit trail survives its process being killed:
// what BeginAudit and FinishAudit reported as done was committed before
// they returned. child must run [CrashChild] on a database; Crash kills it
// with SIGKILL once it has reported n calls begun, then calls reopen to
// open the same database and looks for every record the child reported,
// finished where it said so. It returns that store, for checks of the
// dialect's own (such as InterruptRunning), and the IDs the child
// reported begun but not finished.
func Crash(t *testing.T, child *exec.Cmd, n int, reopen func() store.Store) (after store.Store, running []string) {
	t.Helper()
	out, err := child.StdoutPipe()
	must(t, "child stdout", err)
	var stderr strings.Builder
	child.Stderr = &stderr
	must(t, "starting the child", child.Start())
	begun := map[string]bool{} // ID: finished
	lines := bufio.NewScanner(out)
	for count := 0; count < n && lines.Scan(); {
		what, id, _ := strings.Cut(lines.Text(), " ")
		switch what {
		case "begun":
			begun[id] = false
			count++
		case "finished":
			begun[id] = true
		}
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	if len(begun) < n {
		t.Fatalf("the child reported %d calls before it stopped, want %d; its stderr:\n%s", len(begun), n, stderr.String())
	}

	after = reopen()
	list, err := after.ListAudit(ctx(t), store.AuditFilter{Limit: 100 * n})
	must(t, "ListAudit", err)
	got := map[string]store.Outcome{}
	for _, r := range list {
		got[r.ID] = r.Outcome
	}
	for id, finished := range begun {
		switch o, ok := got[id]; {
		case !ok:
			t.Errorf("record %s, reported begun, is missing after the crash", id)
		case finished && o != store.OutcomeOK:
			t.Errorf("record %s, reported finished, is %s after the crash", id, o)
		case !finished:
			running = append(running, id)
		}
	}
	return after, running
}
