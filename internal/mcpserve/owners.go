package mcpserve

import (
	"net/http"
	"sync"
)

// sessionOwners remembers which caller created each HTTP session, so that
// another caller who learns a session ID cannot use the session (and the
// identity it was created with: tool handlers see the creating caller).
type sessionOwners struct {
	mu     sync.Mutex
	owners map[string]string // session ID -> caller ID; guarded by mu
}

func (o *sessionOwners) get(id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.owners[id]
	return owner, ok
}

// add records the owner of a new session. Sessions that ended without a
// DELETE (idle timeout, Close) are pruned here, when the map has grown well
// past the live sessions, so its size stays proportional to them.
func (o *sessionOwners) add(id, caller string, live func() map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owners == nil {
		o.owners = make(map[string]string)
	}
	o.owners[id] = caller
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
	}
}

// Flush and Unwrap keep streaming working through the wrapper
// (http.ResponseController finds the underlying writer).
func (w *ownerRecorder) Flush() {
	w.record(http.StatusOK)
	_ = http.NewResponseController(w.ResponseWriter).Flush() // an error means the client left
}

func (w *ownerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
