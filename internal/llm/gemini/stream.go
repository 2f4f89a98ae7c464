package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/sse"
)

// wireResponse is one GenerateContentResponse: the whole answer of
// generateContent, or one event of streamGenerateContent. Only the first
// candidate is read.
type wireResponse struct {
	Candidates []struct {
		Content      content `json:"content"`
		FinishReason string  `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

// stream turns responses into events. It lives for one response.
type stream struct {
	provider string
	calls    int
	reason   string
	usage    *llm.Usage
}

func newStream(provider string) *stream { return &stream{provider: provider} }

// run reads the SSE body and yields events until the body ends, an error,
// or the consumer stops. Gemini sends no end marker: a stream is complete
// when a response carried a finishReason.
func (s *stream) run(body io.Reader, yield func(llm.Event, error) bool) {
	var r wireResponse
	for ev, err := range sse.Events(body, nil) {
		if err != nil {
			yield(llm.Event{}, llm.StreamError(s.provider, "event stream", err))
			return
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		r = wireResponse{}
		if err := json.Unmarshal(data, &r); err != nil {
			yield(llm.Event{}, llm.MalformedError(s.provider, "stream event", err))
			return
		}
		if !s.response(&r, yield) {
			return
		}
	}
	s.finish(yield)
}

// response handles one response; it reports false when the stream must end
// (the consumer stopped, or an error was yielded).
func (s *stream) response(r *wireResponse, yield func(llm.Event, error) bool) bool {
	if len(r.Error) > 0 && string(r.Error) != "null" {
		b, _ := json.Marshal(map[string]json.RawMessage{"error": r.Error})
		yield(llm.Event{}, decodeError(s.provider, 0, nil, b))
		return false
	}
	if u := r.UsageMetadata; u != nil {
		s.usage = &llm.Usage{
			InputTokens:     u.PromptTokenCount,
			OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens: u.CachedContentTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount,
		}
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" && len(r.Candidates) == 0 {
		s.reason = r.PromptFeedback.BlockReason
		return true
	}
	if len(r.Candidates) == 0 {
		return true
	}
	cand := &r.Candidates[0]
	for i := range cand.Content.Parts {
		p := &cand.Content.Parts[i]
		var ev llm.Event
		switch {
		case p.FunctionCall != nil:
			ev = llm.Event{Type: llm.EventToolCall, ToolCall: s.call(p)}
		case p.Text == "":
			continue
		case p.Thought:
			ev = llm.Event{Type: llm.EventReasoningDelta, Text: p.Text}
		default:
			ev = llm.Event{Type: llm.EventTextDelta, Text: p.Text}
		}
		if !yield(ev, nil) {
			return false
		}
	}
	if cand.FinishReason != "" {
		s.reason = cand.FinishReason
	}
	return true
}

// call converts a function call, making up its id (see splitID).
func (s *stream) call(p *part) llm.ToolCall {
	s.calls++
	id := p.FunctionCall.ID
	if id != "" {
		id = gidPrefix + id
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = genPrefix + hex.EncodeToString(b[:])
	}
	if p.ThoughtSignature != "" {
		id += sigSep + p.ThoughtSignature
	}
	args := bytes.TrimSpace(p.FunctionCall.Args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	return llm.ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: bytes.Clone(args)}
}

// finish yields usage and stop, or the error for a stream cut short.
func (s *stream) finish(yield func(llm.Event, error) bool) {
	if s.reason == "" {
		yield(llm.Event{}, llm.IncompleteError(s.provider))
		return
	}
	if s.usage != nil && !yield(llm.Event{Type: llm.EventUsage, Usage: *s.usage}, nil) {
		return
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: stopReason(s.reason, s.calls > 0), RawStopReason: s.reason}, nil)
}

// stopReason maps Gemini's finishReason (or a prompt's blockReason).
func stopReason(r string, calls bool) llm.StopReason {
	switch r {
	case "STOP":
		if calls {
			return llm.StopToolUse
		}
		return llm.StopEndTurn
	case "MAX_TOKENS":
		return llm.StopMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
		"IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR", "JAILBREAK":
		return llm.StopContentFilter
	default: // OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL...
		return llm.StopOther
	}
}
