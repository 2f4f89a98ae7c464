package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/sse"
)

// rawCall is a tool call or a fragment of one, streamed or whole.
type rawCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string (OpenAI) or, from some servers, an object.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// assembly gathers the fragments of one tool call.
type assembly struct {
	index int
	id    string
	name  string
	args  []byte
}

func (a *assembly) add(rc rawCall) {
	if a.id == "" {
		a.id = rc.ID
	}
	if a.name == "" {
		a.name = rc.Function.Name
	}
	raw := bytes.TrimSpace(rc.Function.Arguments)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		if bytes.IndexByte(raw, '\\') < 0 {
			a.args = append(a.args, raw[1:len(raw)-1]...) // no escapes: the common case, no allocation
			return
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			a.args = append(a.args, s...)
		}
	default:
		// Arguments sent whole as a JSON object (Ollama, some llama.cpp builds).
		a.args = append(a.args[:0], raw...)
	}
}

// call returns the assembled call, with an id made up when the server sent
// none (the id must round-trip in the tool result, so it cannot stay empty).
func (a *assembly) call() llm.ToolCall {
	id := a.id
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = "call_" + hex.EncodeToString(b[:])
	}
	args := bytes.TrimSpace(a.args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	return llm.ToolCall{ID: id, Name: a.name, Arguments: bytes.Clone(args)}
}

// chunk is one streamed chat.completion.chunk. Only the first choice is read.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content          string    `json:"content"`
			ReasoningContent string    `json:"reasoning_content"`
			Reasoning        string    `json:"reasoning"`
			ToolCalls        []rawCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// stream turns chunks into events. It lives for one response.
type stream struct {
	provider string
	calls    []*assembly
	emitted  int // calls already yielded
	finish   string
	finished bool
	usage    *llm.Usage
	maxArgs  int // llm.MaxToolArguments; smaller in tests
}

func newStream(provider string) *stream {
	return &stream{provider: provider, maxArgs: llm.MaxToolArguments}
}

// done is the data of OpenAI's end-of-stream event.
const done = "[DONE]"

// run reads the SSE body and yields events until the end marker, an error,
// or the consumer stops.
func (s *stream) run(body io.Reader, yield func(llm.Event, error) bool) {
	sawDone := false
	var c chunk
	for ev, err := range sse.Events(body, nil) {
		if err != nil {
			yield(llm.Event{}, llm.StreamError(s.provider, "event stream", err))
			return
		}
		data := bytes.TrimSpace(ev.Data)
		if string(data) == done {
			sawDone = true
			break
		}
		if len(data) == 0 {
			continue
		}
		c = chunk{}
		if err := json.Unmarshal(data, &c); err != nil {
			yield(llm.Event{}, llm.MalformedError(s.provider, "stream chunk", err))
			return
		}
		if len(c.Error) > 0 && string(c.Error) != "null" || ev.Type == "error" {
			yield(llm.Event{}, llm.DecodeError(s.provider, 0, nil, data))
			return
		}
		if !s.chunk(&c, yield) {
			return
		}
	}
	if !sawDone && !s.finished {
		yield(llm.Event{}, llm.IncompleteError(s.provider))
		return
	}
	if !s.flushCalls(yield) {
		return
	}
	if s.usage != nil && !yield(llm.Event{Type: llm.EventUsage, Usage: *s.usage}, nil) {
		return
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: stopReason(s.finish, len(s.calls) > 0), RawStopReason: s.finish}, nil)
}

// chunk handles one chunk; it reports false when the consumer stopped.
func (s *stream) chunk(c *chunk, yield func(llm.Event, error) bool) bool {
	if c.Usage != nil {
		u := c.Usage.usage()
		s.usage = &u
	}
	if len(c.Choices) == 0 {
		return true
	}
	ch := &c.Choices[0]
	d := &ch.Delta
	if r := d.ReasoningContent + d.Reasoning; r != "" && !yield(llm.Event{Type: llm.EventReasoningDelta, Text: r}, nil) {
		return false
	}
	if d.Content != "" && !yield(llm.Event{Type: llm.EventTextDelta, Text: d.Content}, nil) {
		return false
	}
	for _, rc := range d.ToolCalls {
		a := s.slot(rc)
		a.add(rc)
		if len(a.args) > s.maxArgs {
			yield(llm.Event{}, llm.MalformedError(s.provider, "tool call arguments",
				fmt.Errorf("the arguments of %q exceed %d bytes", a.name, s.maxArgs)))
			return false
		}
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.finish, s.finished = *ch.FinishReason, true
		return s.flushCalls(yield)
	}
	return true
}

// slot returns the assembly a fragment belongs to, opening a new one for a
// new index, or for a new id at a used index (Ollama gives every call of a
// parallel batch index 0).
func (s *stream) slot(rc rawCall) *assembly {
	var a *assembly
	if rc.Index != nil {
		for i := len(s.calls) - 1; i >= s.emitted; i-- {
			if s.calls[i].index == *rc.Index {
				a = s.calls[i]
				break
			}
		}
	} else if rc.ID == "" && len(s.calls) > s.emitted {
		a = s.calls[len(s.calls)-1]
	}
	if a != nil && rc.ID != "" && a.id != "" && a.id != rc.ID {
		a = nil
	}
	if a == nil {
		a = &assembly{index: len(s.calls)}
		if rc.Index != nil {
			a.index = *rc.Index
		}
		s.calls = append(s.calls, a)
	}
	return a
}

// flushCalls yields the calls not yet yielded.
func (s *stream) flushCalls(yield func(llm.Event, error) bool) bool {
	for ; s.emitted < len(s.calls); s.emitted++ {
		if !yield(llm.Event{Type: llm.EventToolCall, ToolCall: s.calls[s.emitted].call()}, nil) {
			s.emitted++
			return false
		}
	}
	return true
}
