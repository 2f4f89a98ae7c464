package openai

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// drainStream runs s over body and returns its events and error.
func drainStream(s *stream, body []byte) ([]llm.Event, error) {
	return llmtest.Drain(func(r io.Reader, yield func(llm.Event, error) bool) { s.run(r, yield) }, body, false)
}

// checkedDecode is decode that also holds the adapter to its promise that
// every tool call has an id, generated when the server sent none.
func checkedDecode(r io.Reader, yield func(llm.Event, error) bool) {
	decode(r, func(ev llm.Event, err error) bool {
		if ev.Type == llm.EventToolCall && ev.ToolCall.ID == "" {
			panic("tool call without an id")
		}
		return yield(ev, err)
	})
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
		llmtest.CheckSplitReads(t, checkedDecode, body, llmtest.IgnoreCallIDs)
	})
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

// BenchmarkStream measures the decoder's cost per chunk: SSE or NDJSON
// framing, JSON decoding, call assembly and event delivery, from memory.
func BenchmarkStream(b *testing.B) {
	const n = 1000
	llmtest.BenchDecode(b, decode, recorded(n), n, n-3+2)
}

// decode is the adapter's stream decoder as llmtest runs it.
func decode(r io.Reader, yield func(llm.Event, error) bool) { newStream("openai").run(r, yield) }

func TestArgumentsBounded(t *testing.T) {
	piece := strings.Repeat("x", 600)
	var b bytes.Buffer
	b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\":\""}}]}}]}` + "\n\n")
	for range 3 {
		b.WriteString(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + piece + `"}}]}}]}` + "\n\n")
	}
	s := newStream("openai")
	s.maxArgs = 1000
	_, err := drainStream(s, b.Bytes())
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindMalformed {
		t.Errorf("error = %v, want a malformed *llm.Error for oversized arguments", err)
	}
}
