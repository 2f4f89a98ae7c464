package gemini

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

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
	f.Fuzz(func(t *testing.T, body []byte) { llmtest.CheckSplitReads(t, decode, body, llmtest.IgnoreCallIDs) })
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

// BenchmarkStream measures the decoder's cost per chunk: SSE or NDJSON
// framing, JSON decoding, call assembly and event delivery, from memory.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	llmtest.BenchDecode(b, decode, recorded(n), n, n-2+1+2)
}

// decode is the adapter's stream decoder as llmtest runs it.
func decode(r io.Reader, yield func(llm.Event, error) bool) { newStream("gemini").run(r, yield) }
