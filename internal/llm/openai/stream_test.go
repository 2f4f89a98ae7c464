package openai

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// drain runs the stream decoder over r and returns its events and error.
func drain(body []byte, oneByte bool) ([]llm.Event, error) {
	return drainStream(newStream("openai"), body, oneByte)
}

func drainStream(s *stream, body []byte, oneByte bool) ([]llm.Event, error) {
	r := iotestReader(body, oneByte)
	var evs []llm.Event
	var last error
	s.run(r, func(ev llm.Event, err error) bool {
		if err != nil {
			last = err
			return false
		}
		if ev.Type == llm.EventToolCall && ev.ToolCall.ID == "" {
			panic("tool call without an id")
		}
		evs = append(evs, ev)
		return true
	})
	return evs, last
}

func iotestReader(b []byte, oneByte bool) interface{ Read([]byte) (int, error) } {
	if oneByte {
		return iotest.OneByteReader(bytes.NewReader(b))
	}
	return bytes.NewReader(b)
}

// FuzzStream feeds arbitrary bodies to the chunk decoder: it must never
// panic or hang, and must decode the same events however reads are split.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\"\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\ndata: [DONE]\n\n",
		"data: {\"error\":\"boom\"}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-5}]}}]}\n\n",
		"data: nonsense\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		whole, err1 := drain(body, false)
		split, err2 := drain(body, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("whole read error %v, byte-by-byte error %v", err1, err2)
		}
		opt := cmp.Comparer(func(a, b llm.ToolCall) bool { return a.Name == b.Name && bytes.Equal(a.Arguments, b.Arguments) })
		if diff := cmp.Diff(whole, split, opt); diff != "" {
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

// recorded returns a stream of n chunks: n-3 text deltas, one tool call in
// two fragments, and the finish chunk, as OpenAI sends them.
func recorded(n int) []byte {
	var b bytes.Buffer
	for i := range n - 3 {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-AbCdEf\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"system_fingerprint\":\"fp_0123456789\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" word%d\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	b.WriteString("data: {\"id\":\"chatcmpl-AbCdEf\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\"}}]},\"finish_reason\":null}]}\n\n")
	b.WriteString("data: {\"id\":\"chatcmpl-AbCdEf\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}\n\n")
	b.WriteString("data: {\"id\":\"chatcmpl-AbCdEf\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]}\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStream measures the decoder's cost per chunk: SSE framing, JSON
// decoding, tool-call assembly and event delivery, from memory.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	body := recorded(n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		events := 0
		newStream("openai").run(bytes.NewReader(body), func(ev llm.Event, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			events++
			return true
		})
		if events != n-3+2 {
			b.Fatalf("got %d events, want %d", events, n-1)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms1)
	// CPU time is reported too: on a shared machine wall time mostly
	// measures the other processes.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/chunk")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N*n), "allocs/chunk")
	b.ReportMetric(float64(len(body))/float64(n), "bytes/chunk")
}

func TestArgumentsBounded(t *testing.T) {
	piece := strings.Repeat("x", 600)
	var b bytes.Buffer
	b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\":\""}}]}}]}` + "\n\n")
	for range 3 {
		b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + piece + `"}}]}}]}` + "\n\n")
	}
	s := newStream("openai")
	s.maxArgs = 1000
	_, err := drainStream(s, b.Bytes(), false)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindMalformed {
		t.Errorf("error = %v, want a malformed *llm.Error for oversized arguments", err)
	}
}
