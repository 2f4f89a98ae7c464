package server

import (
	"fmt"
	"net/http"
	"sync"
)

// streamSlots bounds each user's concurrent SSE streams, so one key cannot
// hold every connection and run of the server. Slots are keyed by
// [User].key; entries are deleted when their count returns to zero, so the
// map holds only users with a stream open.
type streamSlots struct {
	max int // < 0: no bound

	mu   sync.Mutex
	open map[string]int // guarded by mu
}

func newStreamSlots(maxPerUser int) *streamSlots {
	return &streamSlots{max: maxPerUser, open: map[string]int{}}
}

// acquire takes one of u's stream slots and returns the function that
// gives it back (call it once, when the stream ends), or a 429 error when
// u has all its streams open.
func (ss *streamSlots) acquire(u User) (release func(), err error) {
	if ss.max < 0 {
		return func() {}, nil
	}
	k := u.key()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.open[k] >= ss.max {
		return nil, &Error{
			Status: http.StatusTooManyRequests, Code: "too_many_streams",
			Msg:        fmt.Sprintf("this user has %d streams open, the most allowed; close one (or wait for a run to end) and retry", ss.max),
			RetryAfter: 1,
		}
	}
	ss.open[k]++
	var once sync.Once
	return func() {
		once.Do(func() {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			if ss.open[k]--; ss.open[k] <= 0 {
				delete(ss.open, k)
			}
		})
	}, nil
}
