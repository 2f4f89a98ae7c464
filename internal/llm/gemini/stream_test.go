package gemini

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// BenchmarkStreamDecode measures the adapter's cost per streamed chunk:
// SSE framing, JSON decoding and event conversion of one text delta, as
// Gemini sends it (usage metadata and model version on every event).
func BenchmarkStreamDecode(b *testing.B) {
	const chunks = 200
	var body bytes.Buffer
	for i := range chunks {
		fmt.Fprintf(&body, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"word %d \"}],\"role\": \"model\"},\"index\": 0}],"+
			"\"usageMetadata\": {\"promptTokenCount\": 12,\"candidatesTokenCount\": %d,\"totalTokenCount\": %d},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"abc\"}\r\n\r\n", i, i, i+12)
	}
	body.WriteString("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n")
	raw := body.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		newStream("gemini").run(bytes.NewReader(raw), func(ev llm.Event, err error) bool {
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
