package llmtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// testEveryByte cuts a body with text and two fragmented tool calls at
// every byte boundary: request k cuts it at k, k+stride, k+2*stride, ...,
// so stride requests cover every boundary, each flushed separately.
func testEveryByte(t *testing.T, h *Harness) {
	const stride = 61
	turn := Turn{
		Text: []string{"Ché", "cking"}, ToolCalls: []ToolCallScript{weatherCall(), timeCall()},
		Usage: llm.Usage{InputTokens: 3, OutputTokens: 4},
	}
	body := Join(h.Stream(turn))
	var replies []Reply
	for k := range stride {
		var cuts []int
		for c := k; c <= len(body); c += stride {
			cuts = append(cuts, c)
		}
		replies = append(replies, Reply{Header: h.header(), Chunks: Split(body, cuts...)})
	}
	srv := NewServer(t, replies...)
	p := h.NewProvider(t, srv.URL, suiteOptions())
	ctx := caseContext(t)
	want := Response(turn)
	for k := range stride {
		got, err := llm.Collect(p.Stream(ctx, testRequest(h)))
		if err != nil {
			t.Fatalf("cuts at %d+%d*n of %d bytes: %v", k, stride, len(body), err)
		}
		if diff := cmp.Diff(want, got, eventOpts(h)); diff != "" {
			t.Fatalf("cuts at %d+%d*n of %d bytes: response mismatch (-want +got):\n%s", k, stride, len(body), diff)
		}
	}
}

// testToolResults sends a conversation with tool calls and their results
// and lets the harness check the wire encoding the server received.
func testToolResults(t *testing.T, h *Harness) {
	var got []byte
	rep := h.reply(Turn{Text: []string{"18C and cloudy."}})
	rep.Check = func(_ testing.TB, r *http.Request, body []byte) { got = body }
	srv := NewServer(t, rep)
	p := h.NewProvider(t, srv.URL, suiteOptions())
	if _, err := llm.Collect(p.Stream(caseContext(t), ToolResultsRequest(h.Model))); err != nil {
		t.Fatalf("streaming: %v", err)
	}
	if got == nil {
		t.Fatal("the server saw no request body")
	}
	h.CheckToolResults(t, got)
}

// testError serves the error case as often as the client retries, and checks
// the typed error and the number of attempts.
func testError(t *testing.T, h *Harness, c ErrorCase, attempts int, ok func(*llm.Error) bool) {
	status, body := h.Error(c)
	var replies []Reply
	for range attempts {
		replies = append(replies, Reply{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Chunks: [][]byte{body}})
	}
	srv := NewServer(t, replies...)
	p := h.NewProvider(t, srv.URL, suiteOptions()) // MaxRetries default: 2
	_, err := record(caseContext(t), p, testRequest(h))
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want an *llm.Error", err, err)
	}
	if !ok(e) {
		t.Errorf("error %#v does not have the expected kind and flags for %s", e, c)
	}
	if e.Provider != h.Name || e.Status != status {
		t.Errorf("error provider %q status %d, want %q %d", e.Provider, e.Status, h.Name, status)
	}
	if n := len(srv.Requests()); n != attempts {
		t.Errorf("server saw %d requests, want %d", n, attempts)
	}
}

// testRetried serves one error and then success. With retryAfter set, the
// backoff is made too long to be allowed, so only honouring the header
// (which asks for retryAfter seconds) can succeed.
func testRetried(t *testing.T, h *Harness, c ErrorCase, retryAfter string) {
	status, body := h.Error(c)
	hdr := http.Header{"Content-Type": {"application/json"}}
	opts := suiteOptions()
	if retryAfter != "" {
		hdr.Set("Retry-After", retryAfter)
		opts.InitialBackoff = time.Hour
	}
	turn := Turn{Text: []string{"fine now"}}
	srv := NewServer(t, Reply{Status: status, Header: hdr, Chunks: [][]byte{body}}, h.reply(turn))
	p := h.NewProvider(t, srv.URL, opts)
	start := time.Now()
	got, err := llm.Collect(p.Stream(caseContext(t), testRequest(h)))
	if err != nil {
		t.Fatalf("after one %d the retry should succeed: %v", status, err)
	}
	if diff := cmp.Diff(Response(turn), got, eventOpts(h)); diff != "" {
		t.Errorf("response mismatch (-want +got):\n%s", diff)
	}
	if retryAfter != "" && time.Since(start) < 900*time.Millisecond {
		t.Errorf("retried after %v, before the Retry-After of %ss", time.Since(start), retryAfter)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// stalled returns a reply that sends the start of a turn and then nothing.
func (h *Harness) stalled() Reply {
	chunks := h.Stream(Turn{Text: []string{"one", "two"}})
	return Reply{Header: h.header(), Chunks: chunks[:len(chunks)/2], Stall: true}
}

// firstText ranges until the first text delta, then calls then(); it returns
// the stream's final error and how long the stream took after then().
func firstText(ctx context.Context, t *testing.T, p llm.Provider, req *llm.Request, then func() bool) (time.Duration, error) {
	var start time.Time
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return time.Since(start), err
		}
		if ev.Type == llm.EventTextDelta && start.IsZero() {
			start = time.Now()
			if !then() {
				return 0, nil
			}
		}
	}
	t.Fatal("the stream ended without an error")
	return 0, nil
}

func testCancel(t *testing.T, h *Harness) {
	srv := NewServer(t, h.stalled())
	p := h.NewProvider(t, srv.URL, suiteOptions())
	ctx, cancel := context.WithCancel(caseContext(t))
	defer cancel()
	took, err := firstText(ctx, t, p, testRequest(h), func() bool { cancel(); return true })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want one wrapping context.Canceled", err)
	}
	if took > 3*time.Second {
		t.Errorf("the stream took %v to end after cancellation", took)
	}
	waitGone(t, srv)
}

func testBreak(t *testing.T, h *Harness) {
	srv := NewServer(t, h.stalled())
	p := h.NewProvider(t, srv.URL, suiteOptions())
	_, _ = firstText(caseContext(t), t, p, testRequest(h), func() bool { return false })
	waitGone(t, srv)
}

// waitGone waits for the fake server to see its client leave.
func waitGone(t *testing.T, srv *Server) {
	t.Helper()
	select {
	case <-srv.ClientGone():
	case <-time.After(5 * time.Second):
		t.Error("the server still held the connection 5s after the stream ended: the body was not closed")
	}
}

func testDropped(t *testing.T, h *Harness) {
	chunks := h.Stream(Turn{Text: []string{"one", "two", "three"}})
	srv := NewServer(t, Reply{Header: h.header(), Chunks: chunks[:len(chunks)/2], Drop: true})
	p := h.NewProvider(t, srv.URL, suiteOptions())
	_, err := record(caseContext(t), p, testRequest(h))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindConnection {
		t.Errorf("error = %v, want an *llm.Error of kind connection", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests; a stream that already yielded output must not be retried", n)
	}
}

// testDropBeforeOutput cuts the connection right after the headers: nothing
// reached the consumer, so the request is retried.
func testDropBeforeOutput(t *testing.T, h *Harness) {
	if !h.RetriesBeforeOutput {
		t.Skip("the harness does not set RetriesBeforeOutput: the adapter does not stream through llm.Transport.Stream")
	}
	turn := Turn{Text: []string{"second try"}}
	srv := NewServer(t, Reply{Header: h.header(), Drop: true}, h.reply(turn))
	p := h.NewProvider(t, srv.URL, suiteOptions())
	got, err := llm.Collect(p.Stream(caseContext(t), testRequest(h)))
	if err != nil {
		t.Fatalf("a connection dropped before any output should be retried: %v", err)
	}
	if diff := cmp.Diff(Response(turn), got, eventOpts(h)); diff != "" {
		t.Errorf("response mismatch (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func testMalformed(t *testing.T, h *Harness) {
	srv := NewServer(t, Reply{Header: h.header(), Chunks: h.Malformed()})
	p := h.NewProvider(t, srv.URL, suiteOptions())
	_, err := record(caseContext(t), p, testRequest(h))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindMalformed {
		t.Errorf("error = %v, want an *llm.Error of kind malformed", err)
	}
}

func testIdleTimeout(t *testing.T, h *Harness) {
	srv := NewServer(t, h.stalled())
	opts := suiteOptions()
	opts.IdleTimeout = 200 * time.Millisecond
	p := h.NewProvider(t, srv.URL, opts)
	_, err := record(caseContext(t), p, testRequest(h))
	var e *llm.Error
	if !errors.As(err, &e) || !e.IsTimeout() || e.Code != llm.TimeoutIdle {
		t.Errorf("error = %v, want an *llm.Error of kind timeout, code idle", err)
	}
	waitGone(t, srv)
}

func testFirstTokenTimeout(t *testing.T, h *Harness) {
	srv := NewServer(t, Reply{StallFirst: true})
	opts := suiteOptions()
	opts.FirstTokenTimeout = 200 * time.Millisecond
	opts.MaxRetries = -1
	p := h.NewProvider(t, srv.URL, opts)
	_, err := record(caseContext(t), p, testRequest(h))
	var e *llm.Error
	if !errors.As(err, &e) || !e.IsTimeout() || e.Code != llm.TimeoutFirstToken {
		t.Errorf("error = %v, want an *llm.Error of kind timeout, code first_token", err)
	}
	waitGone(t, srv)
}

func testRangedTwice(t *testing.T, h *Harness) {
	turn := Turn{Text: []string{"once"}}
	srv := NewServer(t, h.reply(turn))
	p := h.NewProvider(t, srv.URL, suiteOptions())
	seq := p.Stream(caseContext(t), testRequest(h))
	if _, err := llm.Collect(seq); err != nil {
		t.Fatalf("first range: %v", err)
	}
	if _, err := llm.Collect(seq); !errors.Is(err, llm.ErrStreamReused) {
		t.Errorf("second range: error = %v, want ErrStreamReused", err)
	}
}

// testConcurrent runs several streams of one provider at once; with -race
// it checks that adapters share no unguarded state between requests.
func testConcurrent(t *testing.T, h *Harness) {
	const n = 4
	turn := Turn{Text: []string{"same", " answer"}, ToolCalls: []ToolCallScript{weatherCall()}}
	var replies []Reply
	for range n {
		replies = append(replies, h.reply(turn))
	}
	srv := NewServer(t, replies...)
	p := h.NewProvider(t, srv.URL, suiteOptions())
	ctx := caseContext(t)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			got, err := llm.Collect(p.Stream(ctx, testRequest(h)))
			if err == nil && !cmp.Equal(Response(turn), got, eventOpts(h)) {
				err = fmt.Errorf("response mismatch (-want +got):\n%s", cmp.Diff(Response(turn), got, eventOpts(h)))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
