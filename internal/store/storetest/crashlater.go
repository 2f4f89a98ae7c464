package storetest

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// LaterFinisher is a store that can finish an audit record without the
// caller waiting for the commit (the SQL stores' FinishAuditLater).
type LaterFinisher interface {
	store.Store
	FinishAuditLater(id string, res store.AuditResult, done func(error))
}

// CrashChildLater is [CrashChild] for stores that finish later: 16
// goroutines begin records and queue their finishes without waiting,
// and a finish is reported when the store says it is committed. Run by
// the child of [Crash], it checks that a finish reported is in the file
// after a kill, and that one queued but not committed leaves its record
// running, to be marked interrupted.
func CrashChildLater(s LaterFinisher, w io.Writer) error {
	var (
		mu   sync.Mutex
		errs = make(chan error, 32)
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
				s.FinishAuditLater(id, store.AuditResult{Outcome: store.OutcomeOK}, func(err error) {
					if err != nil {
						errs <- err
						return
					}
					say("finished", id)
				})
			}
		}()
	}
	return <-errs
}
