package llmtest

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/switchboard-mcp/switchboard/internal/observe"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Decode is an adapter's stream decoder: it reads a response body and
// yields its events until yield returns false or the body ends.
type Decode func(r io.Reader, yield func(llm.Event, error) bool)

// Drain decodes body, whole or one byte per read, and returns the events
// and the error that ended the stream.
func Drain(decode Decode, body []byte, oneByte bool) ([]llm.Event, error) {
	var r io.Reader = bytes.NewReader(body)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	var evs []llm.Event
	var last error
	decode(r, func(ev llm.Event, err error) bool {
		if err != nil {
			last = err
			return false
		}
		evs = append(evs, ev)
		return true
	})
	return evs, last
}

// IgnoreCallIDs compares tool calls without their ids, for adapters that
// generate them.
var IgnoreCallIDs = cmp.Comparer(func(a, b llm.ToolCall) bool {
	return a.Name == b.Name && bytes.Equal(a.Arguments, b.Arguments)
})

// CheckSplitReads fails t when reading body one byte at a time gives other
// events, or another outcome, than reading it whole. Fuzz targets call it.
func CheckSplitReads(t *testing.T, decode Decode, body []byte, opts ...cmp.Option) {
	t.Helper()
	whole, err1 := Drain(decode, body, false)
	split, err2 := Drain(decode, body, true)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("whole read error %v, byte-by-byte error %v", err1, err2)
	}
	if diff := cmp.Diff(whole, split, opts...); diff != "" {
		t.Fatalf("split reads changed the events (-whole +split):\n%s", diff)
	}
}

// BenchDecode measures decode's cost per chunk of a recorded body of
// chunks chunks, from memory, checking that it yields wantEvents events.
// CPU time is reported beside wall time: on a shared machine wall time
// mostly measures the other processes.
func BenchDecode(b *testing.B, decode Decode, body []byte, chunks, wantEvents int) {
	b.Helper()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := observe.ProcessCPU()
	b.ResetTimer()
	for b.Loop() {
		events := 0
		decode(bytes.NewReader(body), func(_ llm.Event, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			events++
			return true
		})
		if events != wantEvents {
			b.Fatalf("got %d events, want %d", events, wantEvents)
		}
	}
	b.StopTimer()
	cpu := observe.ProcessCPU() - cpu0
	runtime.ReadMemStats(&ms1)
	n := float64(b.N * chunks)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/chunk")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/chunk")
	b.ReportMetric(float64(len(body))/float64(chunks), "bytes/chunk")
}
