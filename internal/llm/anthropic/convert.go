package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Wire types of the request.
type (
	wireRequest struct {
		Model         string          `json:"model"`
		MaxTokens     int             `json:"max_tokens"`
		System        string          `json:"system,omitempty"`
		Messages      []wireMessage   `json:"messages"`
		Tools         []wireTool      `json:"tools,omitempty"`
		ToolChoice    *wireToolChoice `json:"tool_choice,omitempty"`
		Temperature   *float64        `json:"temperature,omitempty"`
		StopSequences []string        `json:"stop_sequences,omitempty"`
		Stream        bool            `json:"stream,omitempty"`
	}
	wireMessage struct {
		Role    string      `json:"role"`
		Content []wireBlock `json:"content"`
	}
	// wireBlock is any content block; fields by type.
	wireBlock struct {
		Type string `json:"type"`
		// text
		Text string `json:"text,omitempty"`
		// image
		Source *imageSource `json:"source,omitempty"`
		// tool_use
		ID    string          `json:"id,omitempty"`
		Name  string          `json:"name,omitempty"`
		Input json.RawMessage `json:"input,omitempty"`
		// tool_result
		ToolUseID string      `json:"tool_use_id,omitempty"`
		Content   []wireBlock `json:"content,omitempty"`
		IsError   bool        `json:"is_error,omitempty"`
	}
	imageSource struct {
		Type      string `json:"type"` // base64 or url
		MediaType string `json:"media_type,omitempty"`
		Data      string `json:"data,omitempty"`
		URL       string `json:"url,omitempty"`
	}
	wireTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	wireToolChoice struct {
		Type string `json:"type"` // auto, any, tool, none
		Name string `json:"name,omitempty"`
	}
)

// emptySchema is the input schema of a tool without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// encode builds the JSON body of a Messages request.
func (c *Client) encode(req *llm.Request, stream bool) ([]byte, error) {
	w := wireRequest{
		Model: req.Model, MaxTokens: req.MaxTokens, System: req.SystemPrompt(),
		Temperature: req.Temperature, StopSequences: req.Stop, Stream: stream,
	}
	if w.Model == "" {
		w.Model = c.model
	}
	if w.Model == "" {
		return nil, llm.RequestError(name, errors.New("no model given; set the model in the request or the provider options"))
	}
	if w.MaxTokens <= 0 {
		w.MaxTokens = c.maxTokens
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		role, blocks, err := encodeMessage(m)
		if err != nil {
			return nil, llm.RequestError(name, fmt.Errorf("message %d: %w", i, err))
		}
		if len(blocks) == 0 {
			continue
		}
		// The API wants alternating roles: a turn's tool results go into
		// one user message, and any following user text joins it.
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			w.Messages[n-1].Content = append(w.Messages[n-1].Content, blocks...)
			continue
		}
		w.Messages = append(w.Messages, wireMessage{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		s := t.Parameters
		if len(s) == 0 {
			s = json.RawMessage(emptySchema)
		}
		w.Tools = append(w.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: s})
	}
	if len(req.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case llm.ToolChoiceNone:
			w.ToolChoice = &wireToolChoice{Type: "none"}
		case llm.ToolChoiceRequired:
			w.ToolChoice = &wireToolChoice{Type: "any"}
		case llm.ToolChoiceTool:
			w.ToolChoice = &wireToolChoice{Type: "tool", Name: req.ToolChoice.Name}
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, llm.RequestError(name, fmt.Errorf("encoding JSON: %w", err))
	}
	return b, nil
}

// encodeMessage returns the wire role and blocks of m; system messages have
// none (they are in the top-level system field).
func encodeMessage(m *llm.Message) (string, []wireBlock, error) {
	switch m.Role {
	case llm.RoleSystem:
		return "", nil, nil
	case llm.RoleUser:
		blocks, err := encodeParts(m.Content)
		return "user", blocks, err
	case llm.RoleAssistant:
		blocks, err := encodeParts(m.Content)
		if err != nil {
			return "", nil, err
		}
		for _, tc := range m.ToolCalls {
			in := json.RawMessage(strings.TrimSpace(string(tc.Arguments)))
			if len(in) == 0 || !json.Valid(in) || in[0] != '{' {
				// The API takes an object only; a model's malformed
				// arguments were already reported to it as a tool error.
				in = json.RawMessage(`{}`)
			}
			blocks = append(blocks, wireBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: in})
		}
		return "assistant", blocks, nil
	case llm.RoleTool:
		content, err := encodeParts(m.Content)
		if err != nil {
			return "", nil, err
		}
		return "user", []wireBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: content, IsError: m.IsError}}, nil
	default:
		return "", nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

// encodeParts converts text and image parts; empty text is dropped because
// the API rejects empty text blocks.
func encodeParts(parts []llm.Part) ([]wireBlock, error) {
	var out []wireBlock
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				out = append(out, wireBlock{Type: "text", Text: p.Text})
			}
		case llm.PartImage:
			src, err := encodeImage(p)
			if err != nil {
				return nil, err
			}
			out = append(out, wireBlock{Type: "image", Source: src})
		default:
			return nil, fmt.Errorf("unknown content part type %q", p.Type)
		}
	}
	return out, nil
}

func encodeImage(p llm.Part) (*imageSource, error) {
	if len(p.Data) > 0 {
		if p.MIMEType == "" {
			return nil, fmt.Errorf("image without a MIME type")
		}
		return &imageSource{Type: "base64", MediaType: p.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Data)}, nil
	}
	if mime, data, ok := parseDataURL(p.URL); ok {
		return &imageSource{Type: "base64", MediaType: mime, Data: data}, nil
	}
	if p.URL == "" {
		return nil, fmt.Errorf("image with neither data nor URL")
	}
	return &imageSource{Type: "url", URL: p.URL}, nil
}

// parseDataURL splits "data:image/png;base64,...." into its MIME type and data.
func parseDataURL(u string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	mime, found = strings.CutSuffix(meta, ";base64")
	return mime, data, found && mime != ""
}

// stopReason maps Anthropic's stop_reason.
func stopReason(s string) llm.StopReason {
	switch s {
	case "end_turn":
		return llm.StopEndTurn
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	case "stop_sequence":
		return llm.StopSequence
	case "refusal":
		return llm.StopContentFilter
	default: // pause_turn and whatever comes next
		return llm.StopOther
	}
}

// wireUsage is the usage object of message_start, message_delta and whole
// responses. message_delta's counts are cumulative and replace earlier ones.
type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// merge folds u into dst: fields u reports replace dst's.
func (u *wireUsage) merge(dst *llm.Usage) {
	if u.InputTokens > 0 {
		dst.InputTokens = u.InputTokens
	}
	if u.OutputTokens > 0 {
		dst.OutputTokens = u.OutputTokens
	}
	if u.CacheCreationInputTokens > 0 {
		dst.CacheWriteTokens = u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens > 0 {
		dst.CacheReadTokens = u.CacheReadInputTokens
	}
}

// decodeMessage reads a whole (non-streaming) response.
func decodeMessage(b []byte) (*llm.Response, error) {
	var w struct {
		Type    string `json:"type"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string    `json:"stop_reason"`
		Usage      wireUsage `json:"usage"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, llm.MalformedError(name, "message", err)
	}
	if w.Type == "error" {
		return nil, llm.DecodeError(name, 0, nil, b)
	}
	if w.Type != "message" {
		return nil, llm.MalformedError(name, "message", fmt.Errorf("type %q, want message", w.Type))
	}
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, StopReason: stopReason(w.StopReason), RawStopReason: w.StopReason}
	var text strings.Builder
	for _, blk := range w.Content {
		switch blk.Type {
		case "text":
			text.WriteString(blk.Text)
		case "thinking":
			r.Reasoning += blk.Thinking
		case "tool_use":
			in := blk.Input
			if len(in) == 0 || string(in) == "null" {
				in = json.RawMessage(`{}`)
			}
			r.Message.ToolCalls = append(r.Message.ToolCalls, llm.ToolCall{ID: blk.ID, Name: blk.Name, Arguments: in})
		}
	}
	if text.Len() > 0 {
		r.Message.Content = []llm.Part{llm.TextPart(text.String())}
	}
	w.Usage.merge(&r.Usage)
	return r, nil
}
