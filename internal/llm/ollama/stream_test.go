package ollama

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// BenchmarkStreamDecode measures the adapter's cost per streamed chunk:
// line splitting, JSON decoding and event conversion of one text delta as
// /api/chat sends it.
func BenchmarkStreamDecode(b *testing.B) {
	const chunks = 200
	var body bytes.Buffer
	for i := range chunks {
		fmt.Fprintf(&body, `{"model":"llama3.2","created_at":"2026-11-22T13:00:00.%06dZ","message":{"role":"assistant","content":"word %d "},"done":false}`+"\n", i, i)
	}
	body.WriteString(`{"model":"llama3.2","created_at":"2026-11-22T13:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1,"prompt_eval_count":12,"eval_count":200}` + "\n")
	raw := body.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		newStream("ollama").run(bytes.NewReader(raw), func(ev llm.Event, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			n++
			return true
		})
		if n != chunks+2 {
			b.Fatalf("%d events, want %d", n, chunks+2)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chunks, "ns/chunk")
}
