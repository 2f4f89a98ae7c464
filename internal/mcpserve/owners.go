package mcpserve

import (
	"net/http"
	"sync"
)

// sessionOwners remembers which caller created each HTTP session, so that
// another caller who learns a session ID cannot use the session (and the
// identity it was created with: tool handlers see the creating caller).
//
// It also enforces the per-caller cap: a request that may open a session
// reserves a place first, and the place turns into the session when the
// response names it (or is released when it does not).
type sessionOwners struct {
	mu      sync.Mutex
	owners  map[string]string // session ID -> caller ID; guarded by mu
	pending map[string]int    // caller ID -> places reserved; guarded by mu
}

// reserve reports whether caller may open one more session with max open
// at once (max < 0: no cap), and if so holds a place for it until add or
// release. live is called only when the caller is near the cap, to leave
// out sessions that ended without a DELETE.
func (o *sessionOwners) reserve(caller string, max int, live func() map[string]bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if max >= 0 {
		n := o.pending[caller]
		for _, c := range o.owners {
			if c == caller {
				n++
			}
		}
		if n >= max {
			alive := live()
			n = o.pending[caller]
			for sid, c := range o.owners {
				switch {
				case c != caller:
				case alive[sid]:
					n++
				default:
					delete(o.owners, sid)
				}
			}
			if n >= max {
				return false
			}
		}
	}
	if o.pending == nil {
		o.pending = make(map[string]int)
	}
	o.pending[caller]++
	return true
}

// release gives back a place reserved for caller that opened no session.
func (o *sessionOwners) release(caller string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.releaseLocked(caller)
}

func (o *sessionOwners) releaseLocked(caller string) {
	if o.pending[caller] <= 1 {
		delete(o.pending, caller)
		return
	}
	o.pending[caller]--
}

func (o *sessionOwners) get(id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.owners[id]
	return owner, ok
}

// add records the owner of a new session, taking the place reserved for
// it. Sessions that ended without a
// DELETE (idle timeout, Close) are pruned here, when the map has grown well
// past the live sessions, so its size stays proportional to them.
func (o *sessionOwners) add(id, caller string, live func() map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owners == nil {
		o.owners = make(map[string]string)
	}
	o.owners[id] = caller
	o.releaseLocked(caller)
	if len(o.owners) < 64 {
		return
	}
	alive := live()
	if len(o.owners) < 2*len(alive) {
		return
	}
	for sid := range o.owners {
		if sid != id && !alive[sid] {
			delete(o.owners, sid)
		}
	}
}

func (o *sessionOwners) remove(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.owners, id)
}

// liveSessions returns the IDs of the server's current sessions.
func (s *Server) liveSessions() map[string]bool {
	ids := make(map[string]bool)
	for ss := range s.mcp.Sessions() {
		ids[ss.ID()] = true
	}
	return ids
}

// ownerRecorder records the owner of the session a request creates at the
// moment the response header is written, before the client can see the
// session ID and use it.
type ownerRecorder struct {
	http.ResponseWriter
	owners *sessionOwners
	caller string
	live   func() map[string]bool
	done   bool
	added  bool // a session was recorded, taking the reserved place
}

func (w *ownerRecorder) WriteHeader(code int) {
	w.record(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *ownerRecorder) Write(b []byte) (int, error) {
	w.record(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *ownerRecorder) record(code int) {
	if w.done {
		return
	}
	w.done = true
	if id := w.Header().Get("Mcp-Session-Id"); id != "" && code < 300 {
		w.owners.add(id, w.caller, w.live)
		w.added = true
	}
}

// Flush and Unwrap keep streaming working through the wrapper
// (http.ResponseController finds the underlying writer).
func (w *ownerRecorder) Flush() {
	w.record(http.StatusOK)
	_ = http.NewResponseController(w.ResponseWriter).Flush() // an error means the client left
}

func (w *ownerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
