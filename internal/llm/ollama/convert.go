package ollama

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/schema"
)

// Wire types of /api/chat, shared by requests and responses. Only what
// Switchboard sends or reads is declared.
type (
	wireRequest struct {
		Model     string        `json:"model"`
		Messages  []wireMessage `json:"messages"`
		Tools     []wireTool    `json:"tools,omitempty"`
		Stream    bool          `json:"stream"` // Ollama streams unless told false
		Options   *wireOptions  `json:"options,omitempty"`
		KeepAlive string        `json:"keep_alive,omitempty"`
	}
	wireOptions struct {
		Temperature *float64 `json:"temperature,omitempty"`
		NumPredict  int      `json:"num_predict,omitempty"`
		NumCtx      int      `json:"num_ctx,omitempty"`
		Stop        []string `json:"stop,omitempty"`
	}
	wireMessage struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking,omitempty"`
		Images    [][]byte   `json:"images,omitempty"` // base64 on the wire
		ToolCalls []wireCall `json:"tool_calls,omitempty"`
		ToolName  string     `json:"tool_name,omitempty"`
	}
	wireCall struct {
		ID       string `json:"id,omitempty"`
		Function struct {
			Index     *int            `json:"index,omitempty"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"` // an object, not a string
		} `json:"function"`
	}
	wireTool struct {
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
)

// encode builds the JSON body of an /api/chat request. Ollama has no tool
// choice: "none" leaves the tools out, "required" and a named tool cannot
// be enforced and send the tools as offered.
func (c *Client) encode(req *llm.Request, stream bool) ([]byte, error) {
	w := wireRequest{Model: req.Model, Stream: stream, KeepAlive: c.keepAlive, Messages: []wireMessage{}}
	if w.Model == "" {
		w.Model = c.model
	}
	if w.Model == "" {
		return nil, fmt.Errorf("%s: building request: no model given; set the model in the request or the provider options", c.name)
	}
	if req.Temperature != nil || req.MaxTokens > 0 || len(req.Stop) > 0 || c.numCtx > 0 {
		w.Options = &wireOptions{Temperature: req.Temperature, NumPredict: req.MaxTokens, NumCtx: c.numCtx, Stop: req.Stop}
	}
	if s := req.SystemPrompt(); s != "" {
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: s})
	}
	names := make(map[string]string)
	for i := range req.Messages {
		m := &req.Messages[i]
		var wm wireMessage
		var err error
		switch m.Role {
		case llm.RoleSystem:
			continue
		case llm.RoleUser, llm.RoleAssistant:
			wm, err = messageContent(m)
			wm.Role = string(m.Role)
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				var call wireCall
				call.Function.Name = tc.Name
				call.Function.Arguments = argsObject(tc.Arguments)
				wm.ToolCalls = append(wm.ToolCalls, call)
			}
		case llm.RoleTool:
			wm, err = messageContent(m)
			wm.Role = "tool"
			wm.ToolName = m.ToolName
			if wm.ToolName == "" {
				wm.ToolName = names[m.ToolCallID]
			}
			if m.IsError {
				// The wire has no error flag: say it in the content.
				wm.Content = "Error: " + wm.Content
			}
		default:
			return nil, fmt.Errorf("%s: building request: message %d has unknown role %q", c.name, i, m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: building request: message %d: %w", c.name, i, err)
		}
		w.Messages = append(w.Messages, wm)
	}
	if len(req.Tools) > 0 && req.ToolChoice.Mode != llm.ToolChoiceNone {
		for _, t := range req.Tools {
			params, err := schema.For(schema.Ollama, t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("%s: building request: parameters of tool %q: %w", c.name, t.Name, err)
			}
			w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params}})
		}
	}
	b, err := json.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding request: %w", c.name, err)
	}
	return b, nil
}

// messageContent renders a message's text and images.
func messageContent(m *llm.Message) (wireMessage, error) {
	var wm wireMessage
	var text strings.Builder
	for _, p := range m.Content {
		switch p.Type {
		case llm.PartText:
			text.WriteString(p.Text)
		case llm.PartImage:
			b, err := imageBytes(p)
			if err != nil {
				return wm, err
			}
			wm.Images = append(wm.Images, b)
		default:
			return wm, fmt.Errorf("unsupported content part type %q", p.Type)
		}
	}
	wm.Content = text.String()
	return wm, nil
}

// imageBytes returns an image's bytes; Ollama cannot fetch URLs, so only
// data: URLs are accepted besides raw bytes.
func imageBytes(p llm.Part) ([]byte, error) {
	if p.URL == "" {
		return p.Data, nil
	}
	rest, ok := strings.CutPrefix(p.URL, "data:")
	meta, data, found := strings.Cut(rest, ",")
	if !ok || !found || !strings.HasSuffix(meta, ";base64") {
		return nil, fmt.Errorf("image URL %.40q: Ollama takes images as bytes; send the image data or a base64 data: URL", p.URL)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("decoding data: URL image: %w", err)
	}
	return b, nil
}

// argsObject returns args when it is a JSON object, otherwise {}: Ollama
// takes arguments as an object, and one malformed history entry must not
// make the whole request invalid.
func argsObject(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return json.RawMessage("{}")
}
