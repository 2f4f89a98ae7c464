package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/sse"
)

// wireEvent is any streaming event; fields by type.
type wireEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage wireUsage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// block is a content block being received.
type block struct {
	index int
	kind  string // text, tool_use, thinking, ...
	id    string
	name  string
	input []byte // assembled input_json_delta fragments
	start json.RawMessage
}

// stream turns events into [llm.Event]s. It lives for one response.
type stream struct {
	blocks   []*block // open blocks; usually one
	usage    llm.Usage
	hasUsage bool
	stop     string
}

func newStream() *stream { return &stream{} }

// run reads the SSE body and yields events until message_stop, an error, or
// the consumer stops.
func (s *stream) run(body io.Reader, yield func(llm.Event, error) bool) {
	var ev wireEvent
	for se, err := range sse.Events(body, nil) {
		if err != nil {
			yield(llm.Event{}, llm.StreamError(name, "event stream", err))
			return
		}
		ev = wireEvent{}
		if err := json.Unmarshal(se.Data, &ev); err != nil {
			yield(llm.Event{}, llm.MalformedError(name, "stream event "+se.Type, err))
			return
		}
		done, ok := s.event(&ev, yield)
		if !ok {
			return
		}
		if done {
			if s.hasUsage && !yield(llm.Event{Type: llm.EventUsage, Usage: s.usage}, nil) {
				return
			}
			yield(llm.Event{Type: llm.EventStop, StopReason: stopReason(s.stop), RawStopReason: s.stop}, nil)
			return
		}
	}
	yield(llm.Event{}, llm.IncompleteError(name))
}

// event handles one event. done reports message_stop; ok false means stop
// now (the consumer stopped, or an error was yielded).
func (s *stream) event(ev *wireEvent, yield func(llm.Event, error) bool) (done, ok bool) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			ev.Message.Usage.merge(&s.usage)
			s.hasUsage = s.usage != (llm.Usage{})
		}
	case "content_block_start":
		if ev.ContentBlock == nil {
			return false, yield(llm.Event{}, llm.MalformedError(name, "content_block_start", fmt.Errorf("no content_block")))
		}
		cb := ev.ContentBlock
		s.blocks = append(s.blocks, &block{index: ev.Index, kind: cb.Type, id: cb.ID, name: cb.Name, start: cb.Input})
		if cb.Type == "text" && cb.Text != "" {
			return false, yield(llm.Event{Type: llm.EventTextDelta, Text: cb.Text}, nil)
		}
	case "content_block_delta":
		if ev.Delta == nil {
			return false, yield(llm.Event{}, llm.MalformedError(name, "content_block_delta", fmt.Errorf("no delta")))
		}
		switch ev.Delta.Type {
		case "text_delta":
			return false, ev.Delta.Text == "" || yield(llm.Event{Type: llm.EventTextDelta, Text: ev.Delta.Text}, nil)
		case "thinking_delta":
			return false, ev.Delta.Thinking == "" || yield(llm.Event{Type: llm.EventReasoningDelta, Text: ev.Delta.Thinking}, nil)
		case "input_json_delta":
			b := s.block(ev.Index)
			if b == nil {
				return false, yield(llm.Event{}, llm.MalformedError(name, "input_json_delta",
					fmt.Errorf("delta for block %d, which was not started", ev.Index)))
			}
			b.input = append(b.input, ev.Delta.PartialJSON...)
			if len(b.input) > llm.MaxToolArguments {
				yield(llm.Event{}, llm.MalformedError(name, "input_json_delta",
					fmt.Errorf("the input of %q exceeds %d bytes", b.name, llm.MaxToolArguments)))
				return false, false
			}
		}
		// signature_delta, citations_delta and future deltas carry nothing we use.
	case "content_block_stop":
		b := s.block(ev.Index)
		if b == nil {
			return false, true
		}
		s.close(b)
		if b.kind == "tool_use" {
			return false, yield(llm.Event{Type: llm.EventToolCall, ToolCall: b.call()}, nil)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			s.stop = ev.Delta.StopReason
		}
		if ev.Usage != nil {
			ev.Usage.merge(&s.usage)
			s.hasUsage = s.usage != (llm.Usage{})
		}
	case "message_stop":
		return true, true
	case "error":
		code, msg := "", "error event without details"
		if ev.Error != nil {
			code, msg = ev.Error.Type, ev.Error.Message
		}
		yield(llm.Event{}, llm.NewError(name, 0, code, msg))
		return false, false
	case "ping", "":
	}
	return false, true
}

func (s *stream) block(index int) *block {
	for _, b := range s.blocks {
		if b.index == index {
			return b
		}
	}
	return nil
}

func (s *stream) close(b *block) {
	for i, o := range s.blocks {
		if o == b {
			s.blocks = append(s.blocks[:i], s.blocks[i+1:]...)
			return
		}
	}
}

// call returns the assembled tool call. Without input deltas the input is
// the one in content_block_start.
func (b *block) call() llm.ToolCall {
	in := bytes.TrimSpace(b.input)
	if len(in) == 0 {
		in = bytes.TrimSpace(b.start)
	}
	if len(in) == 0 || string(in) == "null" {
		in = []byte("{}")
	}
	return llm.ToolCall{ID: b.id, Name: b.name, Arguments: bytes.Clone(in)}
}
