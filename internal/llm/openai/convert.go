package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Wire types of the request. Only what Switchboard sends is declared.
type (
	wireRequest struct {
		Model         string         `json:"model"`
		Messages      []wireMessage  `json:"messages"`
		Stream        bool           `json:"stream,omitempty"`
		StreamOptions *streamOptions `json:"stream_options,omitempty"`
		Tools         []wireTool     `json:"tools,omitempty"`
		ToolChoice    any            `json:"tool_choice,omitempty"`
		Temperature   *float64       `json:"temperature,omitempty"`
		Stop          []string       `json:"stop,omitempty"`
	}
	streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	wireMessage struct {
		Role       string         `json:"role"`
		Content    any            `json:"content"` // string, []wirePart or nil
		ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	wirePart struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	imageURL struct {
		URL string `json:"url"`
	}
	wireTool struct {
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	wireToolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function wireCall `json:"function"`
	}
	wireCall struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
)

// emptyObject is the schema of a tool without parameters.
const emptyObject = `{"type":"object","properties":{}}`

// encode builds the JSON body of a chat completions request.
func (c *Client) encode(req *llm.Request, stream bool) ([]byte, error) {
	w := wireRequest{Model: req.Model, Stream: stream, Temperature: req.Temperature, Stop: req.Stop}
	if w.Model == "" {
		w.Model = c.model
	}
	if w.Model == "" {
		return nil, llm.RequestError(c.name, errors.New("no model given; set the model in the request or the provider options"))
	}
	if stream {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if s := req.SystemPrompt(); s != "" {
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: s})
	}
	// Images from a run of tool messages wait until the run ends: the
	// API wants every tool message right after the assistant message that
	// made the calls, and only user messages carry images.
	var held []wirePart
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == llm.RoleSystem {
			continue // gathered into the system prompt above
		}
		if m.Role != llm.RoleTool && len(held) > 0 {
			w.Messages = append(w.Messages, wireMessage{Role: "user", Content: held})
			held = nil
		}
		wm, err := encodeMessage(m)
		if err != nil {
			return nil, llm.RequestError(c.name, fmt.Errorf("message %d: %w", i, err))
		}
		w.Messages = append(w.Messages, wm)
		if m.Role == llm.RoleTool {
			imgs, err := toolImages(m)
			if err != nil {
				return nil, llm.RequestError(c.name, fmt.Errorf("message %d: %w", i, err))
			}
			held = append(held, imgs...)
		}
	}
	if len(held) > 0 {
		w.Messages = append(w.Messages, wireMessage{Role: "user", Content: held})
	}
	for _, t := range req.Tools {
		p := t.Parameters
		if len(p) == 0 {
			p = json.RawMessage(emptyObject)
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: p}})
	}
	if len(req.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case llm.ToolChoiceNone, llm.ToolChoiceRequired:
			w.ToolChoice = string(req.ToolChoice.Mode)
		case llm.ToolChoiceTool:
			w.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": req.ToolChoice.Name}}
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, llm.RequestError(c.name, fmt.Errorf("encoding JSON: %w", err))
	}
	if req.MaxTokens > 0 {
		// Splice the field in under its configured name.
		b = append(b[:len(b)-1], fmt.Sprintf(",%q:%d}", c.maxTokens, req.MaxTokens)...)
	}
	return b, nil
}

func encodeMessage(m *llm.Message) (wireMessage, error) {
	switch m.Role {
	case llm.RoleUser:
		content, err := encodeContent(m.Content)
		return wireMessage{Role: "user", Content: content}, err
	case llm.RoleAssistant:
		w := wireMessage{Role: "assistant"}
		if t := m.Text(); t != "" {
			w.Content = t
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireCall{Name: tc.Name, Arguments: args}})
		}
		return w, nil
	case llm.RoleTool:
		// Tool messages carry text only; each image is named here and
		// sent in the user message that follows the run of tool messages
		// (see toolImages).
		var b strings.Builder
		if m.IsError && !strings.HasPrefix(strings.ToLower(m.Text()), "error") {
			b.WriteString("Error: ")
		}
		n := 0
		for _, p := range m.Content {
			switch p.Type {
			case llm.PartText:
				b.WriteString(p.Text)
			case llm.PartImage:
				n++
				fmt.Fprintf(&b, "[image %d of this result: sent in the next user message]", n)
			}
		}
		return wireMessage{Role: "tool", ToolCallID: m.ToolCallID, Content: b.String()}, nil
	default:
		return wireMessage{}, fmt.Errorf("unknown role %q", m.Role)
	}
}

// toolImages returns the user-message parts that carry a tool result's
// images: a text part naming the call, then the images in order. It
// returns nil for a result without images.
func toolImages(m *llm.Message) ([]wirePart, error) {
	var imgs []llm.Part
	for _, p := range m.Content {
		if p.Type == llm.PartImage {
			imgs = append(imgs, p)
		}
	}
	if len(imgs) == 0 {
		return nil, nil
	}
	parts, err := encodeContent(imgs)
	if err != nil {
		return nil, fmt.Errorf("image in tool result: %w", err)
	}
	intro := wirePart{Type: "text", Text: fmt.Sprintf("The %s tool result (call %s) included %d image(s):", m.ToolName, m.ToolCallID, len(imgs))}
	return append([]wirePart{intro}, parts.([]wirePart)...), nil
}

// encodeContent returns a plain string for text-only content (every
// compatible server accepts it) and content parts otherwise.
func encodeContent(parts []llm.Part) (any, error) {
	if len(parts) == 1 && parts[0].Type == llm.PartText {
		return parts[0].Text, nil
	}
	out := make([]wirePart, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			out = append(out, wirePart{Type: "text", Text: p.Text})
		case llm.PartImage:
			u := p.URL
			if len(p.Data) > 0 {
				if p.MIMEType == "" {
					return nil, fmt.Errorf("image without a MIME type")
				}
				u = "data:" + p.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
			}
			if u == "" {
				return nil, fmt.Errorf("image with neither data nor URL")
			}
			out = append(out, wirePart{Type: "image_url", ImageURL: &imageURL{URL: u}})
		default:
			return nil, fmt.Errorf("unknown content part type %q", p.Type)
		}
	}
	return out, nil
}

// stopReason maps finish_reason. Some servers say "stop" after tool calls.
func stopReason(finish string, hasCalls bool) llm.StopReason {
	switch finish {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "stop", "eos", "":
		if hasCalls {
			return llm.StopToolUse
		}
		return llm.StopEndTurn
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopContentFilter
	default:
		return llm.StopOther
	}
}

// wireUsage is the usage object of both streaming and whole responses.
type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *wireUsage) usage() llm.Usage {
	out := llm.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

// decodeCompletion reads a whole (non-streaming) response.
func decodeCompletion(provider string, b []byte) (*llm.Response, error) {
	var w struct {
		Choices []struct {
			Message struct {
				Content          *string   `json:"content"`
				ReasoningContent string    `json:"reasoning_content"`
				Reasoning        string    `json:"reasoning"`
				ToolCalls        []rawCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage      `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, llm.MalformedError(provider, "chat completion", err)
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		return nil, llm.DecodeError(provider, 0, nil, b)
	}
	if len(w.Choices) == 0 {
		return nil, llm.MalformedError(provider, "chat completion", fmt.Errorf("no choices in %s", truncate(b)))
	}
	ch := w.Choices[0]
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, RawStopReason: ch.FinishReason}
	if ch.Message.Content != nil && *ch.Message.Content != "" {
		r.Message.Content = []llm.Part{llm.TextPart(*ch.Message.Content)}
	}
	r.Reasoning = ch.Message.ReasoningContent + ch.Message.Reasoning
	for _, rc := range ch.Message.ToolCalls {
		var a assembly
		a.add(rc)
		r.Message.ToolCalls = append(r.Message.ToolCalls, a.call())
	}
	if w.Usage != nil {
		r.Usage = w.Usage.usage()
	}
	r.StopReason = stopReason(ch.FinishReason, len(r.Message.ToolCalls) > 0)
	return r, nil
}

// responseEvents renders a whole response as the events a stream yields.
func responseEvents(r *llm.Response) []llm.Event {
	var evs []llm.Event
	if r.Reasoning != "" {
		evs = append(evs, llm.Event{Type: llm.EventReasoningDelta, Text: r.Reasoning})
	}
	if t := r.Text(); t != "" {
		evs = append(evs, llm.Event{Type: llm.EventTextDelta, Text: t})
	}
	for _, tc := range r.Message.ToolCalls {
		evs = append(evs, llm.Event{Type: llm.EventToolCall, ToolCall: tc})
	}
	if r.Usage != (llm.Usage{}) {
		evs = append(evs, llm.Event{Type: llm.EventUsage, Usage: r.Usage})
	}
	return append(evs, llm.Event{Type: llm.EventStop, StopReason: r.StopReason, RawStopReason: r.RawStopReason})
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
