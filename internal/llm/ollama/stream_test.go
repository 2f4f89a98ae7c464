package ollama

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
	f.Fuzz(func(t *testing.T, body []byte) { llmtest.CheckSplitReads(t, decode, body, llmtest.IgnoreCallIDs) })
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

// BenchmarkStream measures the decoder's cost per chunk: SSE or NDJSON
// framing, JSON decoding, call assembly and event delivery, from memory.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	llmtest.BenchDecode(b, decode, recorded(n), n, n-2+1+2)
}

// decode is the adapter's stream decoder as llmtest runs it.
func decode(r io.Reader, yield func(llm.Event, error) bool) { newStream("ollama").run(r, yield) }
