package llmtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted response of a [Server].
type Reply struct {
	// Status is the HTTP status; zero means 200.
	Status int
	// Header is added to the response. For a 200 without a Content-Type the
	// server sends "text/event-stream".
	Header http.Header
	// Chunks are written in order, each flushed on its own, so a test can
	// split a body at any byte (see [Split]).
	Chunks [][]byte
	// Delay is waited before each chunk after the first.
	Delay time.Duration
	// StallFirst makes the server send nothing, not even headers, until the
	// client goes away (first-token timeout, cancellation before output).
	StallFirst bool
	// Stall keeps the response open after the chunks, sending nothing, until
	// the client goes away (idle timeout, cancellation mid-stream).
	Stall bool
	// Drop cuts the connection after the chunks, without ending the body
	// properly, as a crashed or restarted server would.
	Drop bool
	// Check, when set, is called with the request and its body before the
	// reply is sent, to state expectations about what the client sent.
	Check func(t testing.TB, r *http.Request, body []byte)
}

// Request is a request the [Server] received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is a fake provider on a real loopback HTTP server. It answers the
// n-th request with the n-th [Reply]; a request beyond the script fails the
// test and gets a 500. The server is closed when the test ends.
type Server struct {
	// URL is the server's root URL, without a trailing slash.
	URL string

	t    testing.TB
	srv  *httptest.Server
	done chan struct{} // closed at cleanup; releases stalled handlers

	mu       sync.Mutex
	replies  []Reply   // guarded by mu
	requests []Request // guarded by mu
	gone     chan int  // receives the index of a request whose client went away
}

// NewServer starts a Server that plays replies in order.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{t: t, replies: replies, done: make(chan struct{}), gone: make(chan int, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ClientGone returns a channel that receives the index of each request
// whose client went away (cancelled or closed the body) while the server
// was stalling or delaying. Use it to assert that a stream released its
// connection.
func (s *Server) ClientGone() <-chan int { return s.gone }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("fake server: reading request body: %v", err)
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var rep Reply
	ok := n < len(s.replies)
	if ok {
		rep = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("fake server: unexpected request %d: %s %s %s", n+1, r.Method, r.URL.Path, body)
		http.Error(w, "no scripted reply", http.StatusInternalServerError)
		return
	}
	if rep.Check != nil {
		rep.Check(s.t, r, body)
	}
	if rep.StallFirst {
		s.stall(r, n)
		return
	}
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if status == http.StatusOK && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(status)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for i, c := range rep.Chunks {
		if i > 0 && rep.Delay > 0 && !s.wait(r, n, rep.Delay) {
			return
		}
		if _, err := w.Write(c); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch {
	case rep.Drop:
		// Aborting the handler makes net/http close the connection without
		// the final chunk, so the client sees an unexpected EOF.
		panic(http.ErrAbortHandler)
	case rep.Stall:
		s.stall(r, n)
	}
}

// stall blocks until the client goes away or the test ends.
func (s *Server) stall(r *http.Request, n int) {
	select {
	case <-r.Context().Done():
		s.noteGone(n)
	case <-s.done:
	}
}

// noteGone records that request n's client went away; it never blocks.
func (s *Server) noteGone(n int) {
	select {
	case s.gone <- n:
	default:
	}
}

// wait waits d; it reports false when the client went away first.
func (s *Server) wait(r *http.Request, n int, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		s.noteGone(n)
		return false
	case <-s.done:
		return false
	}
}

// Split returns body cut at the given offsets, in increasing order; offsets
// outside (0, len(body)) are ignored, so Split(b, k) for every k from 0 to
// len(b) covers every byte boundary.
func Split(body []byte, at ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, k := range at {
		if k <= prev || k >= len(body) {
			continue
		}
		out = append(out, body[prev:k])
		prev = k
	}
	return append(out, body[prev:])
}

// Join concatenates chunks.
func Join(chunks [][]byte) []byte {
	var n int
	for _, c := range chunks {
		n += len(c)
	}
	b := make([]byte, 0, n)
	for _, c := range chunks {
		b = append(b, c...)
	}
	return b
}

// JSON returns a reply with the given status (0 means 200) and JSON body,
// sent in one chunk.
func JSON(status int, body string) Reply {
	return Reply{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Chunks: [][]byte{[]byte(body)}}
}
