package gemini

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
// (tool-call ids cleared: they are random) and the final error.
func drain(body []byte, oneByte bool) ([]llm.Event, error) {
	var r io.Reader = bytes.NewReader(body)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	var evs []llm.Event
	var last error
	newStream("gemini").run(r, func(ev llm.Event, err error) bool {
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
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}]}\r\n\r\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1}},\"thoughtSignature\":\"c2ln\"}]}}]}\n\ndata: {\"candidates\":[{\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3}}\n\n",
		"data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n",
		"data: {\"error\":{\"code\":500,\"message\":\"boom\",\"status\":\"INTERNAL\"}}\n\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\",\"thought\":true}]}}]}\n\n",
		"data: {not json\n\n",
		": comment\n\nevent: x\ndata: {}\n\n",
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

// recorded returns a stream of n events as Gemini sends them: n-2 text
// deltas carrying usage metadata and the model version, one function call,
// and the finishing event.
func recorded(n int) []byte {
	var b bytes.Buffer
	for i := range n - 2 {
		fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" word%d\"}],\"role\": \"model\"},\"index\": 0}],"+
			"\"usageMetadata\": {\"promptTokenCount\": 12,\"candidatesTokenCount\": %d,\"totalTokenCount\": %d},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"AbCdEfGh\"}\r\n\r\n", i, i, i+12)
	}
	b.WriteString("data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"city\": \"Paris\"}},\"thoughtSignature\": \"c2lnbmF0dXJl\"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"AbCdEfGh\"}\r\n\r\n")
	b.WriteString("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 12,\"candidatesTokenCount\": 998,\"totalTokenCount\": 1010},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"AbCdEfGh\"}\r\n\r\n")
	return b.Bytes()
}

// BenchmarkStream measures the decoder's cost per event: SSE framing, JSON
// decoding and event delivery, from memory. CPU time is reported too: on a
// shared machine wall time mostly measures the other processes.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	body := recorded(n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		events := 0
		newStream("gemini").run(bytes.NewReader(body), func(ev llm.Event, err error) bool {
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
