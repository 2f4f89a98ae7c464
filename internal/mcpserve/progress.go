package mcpserve

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// progressRelay forwards a tool's progress reports to the client as
// notifications/progress. Tools report without blocking ([tools.CallRequest]
// requires it), while sending may block on a slow client, so reports go
// through a one-slot mailbox to a goroutine that sends them: when the
// client is slower than the tool, intermediate reports are replaced by the
// latest one, which is what a progress bar needs.
//
// The zero relay (no progress token in the request) drops everything; its
// report is nil so the tool sees no observer at all.
type progressRelay struct {
	report func(tools.Progress) // nil when nothing is forwarded

	mu      sync.Mutex
	pending *tools.Progress // latest unsent report; guarded by mu

	wake chan struct{} // capacity 1: a send when full is dropped, the goroutine will see pending anyway
	done chan struct{} // closed by stop
	wg   sync.WaitGroup
}

// startProgress starts a relay for req; stop must be called after the call
// returned.
func (s *Server) startProgress(ctx context.Context, req *mcp.CallToolRequest) *progressRelay {
	r := &progressRelay{}
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return r
	}
	r.wake = make(chan struct{}, 1)
	r.done = make(chan struct{})
	r.report = func(p tools.Progress) {
		r.mu.Lock()
		r.pending = &p
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
	send := func() {
		r.mu.Lock()
		p := r.pending
		r.pending = nil
		r.mu.Unlock()
		if p == nil {
			return
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
		})
		if err != nil {
			s.logger.DebugContext(ctx, "progress not forwarded", logKeyTool, req.Params.Name, logKeyErr, err)
		}
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			select {
			case <-r.wake:
				send()
			case <-r.done:
				send() // the last report before the result
				return
			}
		}
	}()
	return r
}

// stop sends the last pending report and waits for the relay's goroutine.
func (r *progressRelay) stop() {
	if r.done == nil {
		return
	}
	close(r.done)
	r.wg.Wait()
}
