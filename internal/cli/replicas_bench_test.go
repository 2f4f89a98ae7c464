package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkConversationsBehindBalancer runs 500 conversations at once
// through HAProxy, each one turn with one tool call (current_time, no
// approval) on a fake model, over three replicas and, for comparison, one
// replica behind the same balancer. It reports errors (any status but 200,
// any run that does not end with done), the p50 and p99 of a whole turn
// (creating the conversation, posting, reading the stream to its end) and
// turns per second.
func BenchmarkConversationsBehindBalancer(b *testing.B) {
	for _, n := range []int{3, 1} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			f := newFakeOpenAI(b, "current_time", `{}`)
			c := startCluster(b, f.URL+"/v1", n, "")
			const conversations = 500
			var (
				errs  atomic.Int64
				mu    sync.Mutex
				turns []time.Duration
			)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				var wg sync.WaitGroup
				for i := range conversations {
					wg.Go(func() {
						t0 := time.Now()
						if !c.benchTurn(b, fmt.Sprintf("what time is it? (%d)", i)) {
							errs.Add(1)
						}
						d := time.Since(t0)
						mu.Lock()
						turns = append(turns, d)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			elapsed := time.Since(start)
			b.StopTimer()
			slices.Sort(turns)
			b.ReportMetric(float64(errs.Load()), "errors")
			b.ReportMetric(float64(turns[len(turns)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(turns[len(turns)*99/100].Milliseconds()), "p99-ms")
			b.ReportMetric(float64(len(turns))/elapsed.Seconds(), "turns/s")
		})
	}
}

// benchTurn runs one turn through the balancer and reports whether it
// ended with done; failures are counted, not fatal (they happen on the
// benchmark's goroutines).
func (c *cluster) benchTurn(b *testing.B, msg string) bool {
	send := func(method, path string, body any, stream bool) (*http.Response, error) {
		j, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(b.Context(), method, c.lb+path, bytes.NewReader(j))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("Content-Type", "application/json")
		if stream {
			req.Header.Set("Accept", "text/event-stream")
		}
		return http.DefaultClient.Do(req)
	}
	resp, err := send(http.MethodPost, "/api/v1/conversations", map[string]string{"title": "bench"}, false)
	if err != nil {
		return false
	}
	var conv struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&conv)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated {
		return false
	}
	resp, err = send(http.MethodPost, "/api/v1/conversations/"+conv.ID+"/messages", map[string]string{"message": msg}, true)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	last := ""
	events(b, resp.Body, func(ev sseEvent) bool { last = ev.kind; return true })
	return last == "done"
}
