package ollama

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// drain decodes body, whole or one byte per read, and returns the events
// (tool-call ids cleared: made-up ones are random) and the final error.
func drain(body []byte, oneByte bool) ([]llm.Event, error) {
	var r io.Reader = bytes.NewReader(body)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	var evs []llm.Event
	var last error
	newStream("ollama").run(r, func(ev llm.Event, err error) bool {
		if err != nil {
			last = err
			return false
		}
		ev.ToolCall.ID = ""
		evs = append(evs, ev)
		return true
	})
	return evs, last
}

// FuzzStream checks that the decoder never panics and that how the body is
// read does not change what it yields.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		`{"message":{"role":"assistant","content":"hi"},"done":false}` + "\n" + `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":2}` + "\n",
		`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}` + "\n",
		`{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}` + "\n",
		`{"error":"model crashed"}` + "\n",
		`{"message":{"content":"cut`,
		"{not json\n",
		"\n\n  \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		whole, err1 := drain(body, false)
		split, err2 := drain(body, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("whole read error %v, byte-by-byte error %v", err1, err2)
		}
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("split reads changed the events (-whole +split):\n%s", diff)
		}
	})
}

// cpuTime returns the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// recorded returns n lines as /api/chat streams them: n-2 text deltas, one
// line with a tool call, and the done line.
func recorded(n int) []byte {
	var b bytes.Buffer
	for i := range n - 2 {
		fmt.Fprintf(&b, `{"model":"llama3.2","created_at":"2026-11-22T13:00:00.%06dZ","message":{"role":"assistant","content":" word%d"},"done":false}`+"\n", i, i)
	}
	b.WriteString(`{"model":"llama3.2","created_at":"2026-11-22T13:00:01Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":false}` + "\n")
	b.WriteString(`{"model":"llama3.2","created_at":"2026-11-22T13:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":123456789,"load_duration":1234,"prompt_eval_count":12,"prompt_eval_duration":1234,"eval_count":998,"eval_duration":123456}` + "\n")
	return b.Bytes()
}

// BenchmarkStream measures the decoder's cost per line: line splitting,
// JSON decoding and event delivery, from memory. CPU time is reported too:
// on a shared machine wall time mostly measures the other processes.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	body := recorded(n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		events := 0
		newStream("ollama").run(bytes.NewReader(body), func(ev llm.Event, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			events++
			return true
		})
		if events != n-2+1+2 {
			b.Fatalf("got %d events, want %d", events, n+1)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/chunk")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N*n), "allocs/chunk")
	b.ReportMetric(float64(len(body))/float64(n), "bytes/chunk")
}
