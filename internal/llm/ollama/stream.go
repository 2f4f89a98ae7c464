package ollama

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// wireChunk is one NDJSON line of /api/chat, or its whole answer.
type wireChunk struct {
	Message         wireMessage `json:"message"`
	Done            bool        `json:"done"`
	DoneReason      string      `json:"done_reason"`
	PromptEvalCount int         `json:"prompt_eval_count"`
	EvalCount       int         `json:"eval_count"`
	Error           string      `json:"error"`
}

// maxLine bounds one NDJSON line. Lines are small deltas; a whole
// non-streamed answer with long tool arguments is the largest.
const maxLine = 16 << 20

// stream turns NDJSON lines into events. It lives for one response.
type stream struct {
	provider string
	calls    int
}

func newStream(provider string) *stream { return &stream{provider: provider} }

// run reads the body and yields events until the done line, an error, or
// the consumer stops.
func (s *stream) run(body io.Reader, yield func(llm.Event, error) bool) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	// A last line without its newline is a body cut short (a proxy or a
	// crash closing the connection cleanly), not a malformed line.
	cut := false
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			cut = true
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	var c wireChunk
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		c = wireChunk{}
		if err := json.Unmarshal(line, &c); err != nil {
			if cut {
				yield(llm.Event{}, llm.IncompleteError(s.provider))
				return
			}
			yield(llm.Event{}, llm.MalformedError(s.provider, "stream line", err))
			return
		}
		if c.Error != "" {
			// An error after the response started: a model crash, an
			// out-of-memory load. Classified like an error body.
			b, _ := json.Marshal(map[string]string{"error": c.Error})
			yield(llm.Event{}, llm.DecodeError(s.provider, 0, nil, b))
			return
		}
		if !s.chunk(&c, yield) {
			return
		}
		if c.Done {
			s.done(&c, yield)
			return
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			yield(llm.Event{}, llm.MalformedError(s.provider, "stream line", err))
			return
		}
		yield(llm.Event{}, llm.StreamError(s.provider, "stream", err))
		return
	}
	yield(llm.Event{}, llm.IncompleteError(s.provider))
}

// chunk yields the deltas of one line; it reports false when the consumer
// stopped.
func (s *stream) chunk(c *wireChunk, yield func(llm.Event, error) bool) bool {
	m := &c.Message
	if m.Thinking != "" && !yield(llm.Event{Type: llm.EventReasoningDelta, Text: m.Thinking}, nil) {
		return false
	}
	if m.Content != "" && !yield(llm.Event{Type: llm.EventTextDelta, Text: m.Content}, nil) {
		return false
	}
	for i := range m.ToolCalls {
		if !yield(llm.Event{Type: llm.EventToolCall, ToolCall: s.call(&m.ToolCalls[i])}, nil) {
			return false
		}
	}
	return true
}

// call converts a tool call. Ollama sends each call whole, with arguments as
// an object; recent versions add an id, older ones none, so one is made up.
func (s *stream) call(wc *wireCall) llm.ToolCall {
	s.calls++
	id := wc.ID
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = "call_" + hex.EncodeToString(b[:])
	}
	args := bytes.TrimSpace(wc.Function.Arguments)
	switch {
	case len(args) == 0 || string(args) == "null":
		args = []byte("{}")
	case args[0] == '"':
		// Some model templates produce the arguments as a JSON string.
		var str string
		if json.Unmarshal(args, &str) == nil {
			args = []byte(str)
		}
	}
	return llm.ToolCall{ID: id, Name: wc.Function.Name, Arguments: bytes.Clone(args)}
}

// done yields usage and stop from the final line.
func (s *stream) done(c *wireChunk, yield func(llm.Event, error) bool) {
	if c.PromptEvalCount > 0 || c.EvalCount > 0 {
		u := llm.Usage{InputTokens: c.PromptEvalCount, OutputTokens: c.EvalCount}
		if !yield(llm.Event{Type: llm.EventUsage, Usage: u}, nil) {
			return
		}
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: stopReason(c.DoneReason, s.calls > 0), RawStopReason: c.DoneReason}, nil)
}

// stopReason maps done_reason: "stop", "length", or "load"/"unload" for
// requests that only loaded or unloaded the model.
func stopReason(r string, calls bool) llm.StopReason {
	switch r {
	case "stop", "":
		if calls {
			return llm.StopToolUse
		}
		return llm.StopEndTurn
	case "length":
		return llm.StopMaxTokens
	default:
		return llm.StopOther
	}
}
