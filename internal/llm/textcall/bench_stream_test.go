package textcall

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/observe"
)

// benchStream streams reply in pieces of size chunk and reports the cost
// per KiB of reply, the figure docs/BENCHMARKS.md tracks (target: under
// 0.1 ms/KiB).
func benchStream(b *testing.B, reply string, chunk int) {
	p := NewParser([]string{"get_weather", "search", "files__read_file"})
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	cpu0 := observe.ProcessCPU()
	for b.Loop() {
		s := p.NewStream()
		for i := 0; i < len(reply); i += chunk {
			s.Feed(reply[i:min(i+chunk, len(reply))])
		}
		s.Close()
	}
	// Both wall time and the process's CPU time: on a shared machine the
	// wall figure includes waiting for a core. CPU time includes the
	// garbage collector's work on other threads, so it is not lower by
	// construction.
	kib := float64(len(reply)) / 1024
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/kib, "ms/KiB")
	b.ReportMetric(float64((observe.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N)/1e6/kib, "cpu-ms/KiB")
}

// typicalReply is reasoning, an answer with code and markup, and calls in
// two families: what a local reasoning model writes in one turn.
func typicalReply() string {
	var sb strings.Builder
	sb.WriteString("<think>")
	for range 20 {
		sb.WriteString("The user wants the weather; I could use get_weather with {\"location\": \"Paris\"} or search. ")
	}
	sb.WriteString("</think>\n")
	for range 10 {
		sb.WriteString("Here is some `inline code`, a list [1, 2, 3], a comparison a > b, and ```go\nfunc f() { return }\n```\n")
	}
	sb.WriteString("<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>")
	sb.WriteString(`<tool_code>{"tool_name": "search", "arguments": {"q": "museums"}}</tool_code>`)
	return sb.String()
}

// denseReply is text where nearly every byte may start a call.
func denseReply() string {
	return strings.Repeat(`<|x [a( {"q": >>`+"`x` functions.x <tool_call>y</tool_call> ", 60)
}

func BenchmarkStreamTypical16(b *testing.B) { benchStream(b, typicalReply(), 16) }
func BenchmarkStreamTypical1(b *testing.B)  { benchStream(b, typicalReply(), 1) }
func BenchmarkStreamDense4(b *testing.B)    { benchStream(b, denseReply(), 4) }
