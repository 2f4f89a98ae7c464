package llm

import (
	"context"
	"errors"
	"iter"
	"strings"
)

// EventType names the kind of an [Event].
type EventType string

const (
	// EventTextDelta carries the next piece of the answer in Event.Text.
	EventTextDelta EventType = "text_delta"
	// EventReasoningDelta carries the next piece of the model's visible
	// reasoning ("thinking", reasoning_content) in Event.Text. It is not part
	// of the answer and is not sent back to the model.
	EventReasoningDelta EventType = "reasoning_delta"
	// EventToolCall carries one complete, assembled tool call in
	// Event.ToolCall. Fragments are assembled by the adapter; consumers never
	// see partial arguments.
	EventToolCall EventType = "tool_call"
	// EventUsage carries the token counts for the whole request so far in
	// Event.Usage. A later usage event supersedes an earlier one.
	EventUsage EventType = "usage"
	// EventStop is the last event of a stream that completed: StopReason and
	// RawStopReason say why the model stopped.
	EventStop EventType = "stop"
)

// Event is one item of a [Provider] stream. Which fields are set depends on Type.
type Event struct {
	Type     EventType
	Text     string   // EventTextDelta, EventReasoningDelta
	ToolCall ToolCall // EventToolCall
	Usage    Usage    // EventUsage
	// StopReason and RawStopReason are set on EventStop. RawStopReason is the
	// provider's own word ("stop", "end_turn", "STOP", ...).
	StopReason    StopReason
	RawStopReason string
}

// Usage counts tokens. Zero means unknown or none: some OpenAI-compatible
// servers report no usage at all.
type Usage struct {
	InputTokens  int `json:"inputTokens,omitempty"`
	OutputTokens int `json:"outputTokens,omitempty"`
	// CacheReadTokens and CacheWriteTokens are the input tokens served from
	// or written to a prompt cache, where the provider reports them. OpenAI
	// counts cached tokens inside InputTokens; Anthropic counts them apart.
	CacheReadTokens  int `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int `json:"cacheWriteTokens,omitempty"`
	// ReasoningTokens are output tokens spent on reasoning, included in
	// OutputTokens.
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
}

// Total returns InputTokens + OutputTokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// StopReason says, in neutral terms, why the model stopped.
type StopReason string

const (
	StopEndTurn       StopReason = "end_turn"
	StopToolUse       StopReason = "tool_use"
	StopMaxTokens     StopReason = "max_tokens"
	StopSequence      StopReason = "stop_sequence"
	StopContentFilter StopReason = "content_filter"
	StopOther         StopReason = "other"
)

// Response is a whole answer gathered from a stream by [Collect].
type Response struct {
	// Message is the assistant message: text content and tool calls, ready
	// to append to the conversation.
	Message       Message
	Reasoning     string
	Usage         Usage
	StopReason    StopReason
	RawStopReason string
}

// Text returns the answer's text.
func (r *Response) Text() string { return r.Message.Text() }

// ErrIncomplete reports a stream that ended without its [EventStop]; an
// adapter returns it (wrapped in an [*Error] of kind [KindConnection]) when
// the connection closed before the provider said it was done.
var ErrIncomplete = errors.New("stream ended before the model finished")

// Collect ranges over seq and gathers the whole answer. On error it returns
// what was gathered so far together with the error, so a caller may show a
// partial answer; a stream without an [EventStop] is an error.
func Collect(seq iter.Seq2[Event, error]) (*Response, error) {
	resp := &Response{Message: Message{Role: RoleAssistant}}
	var text, reasoning strings.Builder
	stopped := false
	finish := func() {
		if text.Len() > 0 {
			resp.Message.Content = []Part{TextPart(text.String())}
		}
		resp.Reasoning = reasoning.String()
	}
	for ev, err := range seq {
		if err != nil {
			finish()
			return resp, err
		}
		switch ev.Type {
		case EventTextDelta:
			text.WriteString(ev.Text)
		case EventReasoningDelta:
			reasoning.WriteString(ev.Text)
		case EventToolCall:
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, ev.ToolCall)
		case EventUsage:
			resp.Usage = ev.Usage
		case EventStop:
			resp.StopReason, resp.RawStopReason = ev.StopReason, ev.RawStopReason
			stopped = true
		}
	}
	finish()
	if !stopped {
		return resp, ErrIncomplete
	}
	return resp, nil
}

// Generate returns p's whole answer to req: through p's own non-streaming
// call when p is a [Generator], otherwise by collecting its stream.
func Generate(ctx context.Context, p Provider, req *Request) (*Response, error) {
	if g, ok := p.(Generator); ok {
		return g.Generate(ctx, req)
	}
	return Collect(p.Stream(ctx, req))
}
