package mcpserve

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionRec is what the gateway knows of one HTTP session besides the
// SDK: who created it (another caller who learns its ID cannot use it, nor
// the identity it was created with: tool handlers see the creating
// caller), when it was last used, and once it is initialized, the SDK's
// session, which lets tools/call take the direct path (directcall.go).
type sessionRec struct {
	caller string
	// id is the client's ID of the session, as it was issued to caller:
	// a request from caller naming exactly it needs no MAC check (openID).
	id       string
	lastSeen atomic.Int64 // unix nanoseconds when the last request ended
	active   atomic.Int32 // requests in progress (a GET stream counts)
	session  atomic.Pointer[mcp.ServerSession]
}

// sessionOwners keeps the records of the HTTP sessions by ID, and enforces
// the per-caller cap: a request that may open a session reserves a place
// first, and the place turns into the session when the response names it
// (or is released when it does not).
type sessionOwners struct {
	mu      sync.Mutex
	recs    map[string]*sessionRec // session ID -> record; guarded by mu
	pending map[string]int         // caller ID -> places reserved; guarded by mu
}

func (o *sessionOwners) get(id string) (*sessionRec, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.recs[id]
	return r, ok
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
		for _, r := range o.recs {
			if r.caller == caller {
				n++
			}
		}
		if n >= max {
			alive := live()
			n = o.pending[caller]
			for sid, r := range o.recs {
				switch {
				case r.caller != caller:
				case alive[sid]:
					n++
				default:
					delete(o.recs, sid)
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

// add records a new session of caller, whose client knows it as
// clientID, taking the place reserved for it.
// Sessions that ended without a DELETE (Close, a failed initialize) are
// pruned here, when the map has grown well past the live sessions, so its
// size stays proportional to them.
func (o *sessionOwners) add(id, clientID, caller string, live func() map[string]bool) {
	r := &sessionRec{caller: caller, id: clientID}
	r.lastSeen.Store(time.Now().UnixNano())
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.recs == nil {
		o.recs = make(map[string]*sessionRec)
	}
	o.recs[id] = r
	o.releaseLocked(caller)
	if len(o.recs) < 64 {
		return
	}
	alive := live()
	if len(o.recs) < 2*len(alive) {
		return
	}
	for sid := range o.recs {
		if sid != id && !alive[sid] {
			delete(o.recs, sid)
		}
	}
}

func (o *sessionOwners) remove(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.recs, id)
}

// idle returns the IDs of sessions with no request in progress and none
// ended since before.
func (o *sessionOwners) idle(before time.Time) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ids []string
	for id, r := range o.recs {
		if r.active.Load() == 0 && r.lastSeen.Load() < before.UnixNano() {
			ids = append(ids, id)
		}
	}
	return ids
}

// begin and end bracket a request on the session.
func (r *sessionRec) begin() { r.active.Add(1) }

func (r *sessionRec) end() {
	r.lastSeen.Store(time.Now().UnixNano())
	r.active.Add(-1)
}

// liveSessions returns the IDs of the server's current sessions.
func (s *Server) liveSessions() map[string]bool {
	ids := make(map[string]bool)
	for ss := range s.mcp.Sessions() {
		ids[ss.ID()] = true
	}
	return ids
}

// expire closes the HTTP sessions that received no request for
// [Options].SessionTimeout, until the Server closes. The gateway keeps this
// timer rather than the SDK, because tools/call on the direct path never
// reaches the SDK's session.
func (s *Server) expire() {
	defer s.wg.Done()
	tick := time.NewTicker(max(s.opts.SessionTimeout/8, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-tick.C:
			idle := s.owners.idle(now.Add(-s.opts.SessionTimeout))
			if len(idle) == 0 {
				continue
			}
			gone := make(map[string]bool, len(idle))
			for _, id := range idle {
				gone[id] = true
				s.owners.remove(id)
			}
			for ss := range s.mcp.Sessions() {
				if gone[ss.ID()] {
					_ = ss.Close() // the client is gone or idle; nobody to tell
				}
			}
		}
	}
}

// initialized remembers the SDK's session of an initialized HTTP session,
// for the direct path.
func (s *Server) initialized(_ context.Context, req *mcp.InitializedRequest) {
	if req.Session == nil || req.Session.ID() == "" {
		return
	}
	if r, ok := s.owners.get(req.Session.ID()); ok {
		r.session.Store(req.Session)
	}
}
