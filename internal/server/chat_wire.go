package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// The OpenAI chat completions wire format, as much of it as Switchboard
// reads and writes. Fields a client sends that are not listed here
// (temperature, user, ...) are accepted and ignored: the agent's model
// settings apply.

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []chatTool `json:"tools"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, an array of parts, or null.
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []chatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

type chatPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
}

// content decodes a message's content: a string, an array of text and
// image_url parts, or null.
func (m *chatMessage) content() ([]llm.Part, error) {
	raw := strings.TrimSpace(string(m.Content))
	if raw == "" || raw == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(m.Content, &s); err != nil {
			return nil, err
		}
		return []llm.Part{llm.TextPart(s)}, nil
	}
	var parts []chatPart
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return nil, fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	out := make([]llm.Part, 0, len(parts))
	for i, p := range parts {
		switch {
		case p.Type == "text":
			out = append(out, llm.TextPart(p.Text))
		case p.Type == "image_url" && p.ImageURL != nil:
			out = append(out, llm.ImageURLPart(p.ImageURL.URL))
		default:
			return nil, fmt.Errorf("content part %d has unsupported type %q (want text or image_url)", i, p.Type)
		}
	}
	return out, nil
}

// toLLM converts the request's messages. Tool messages take their tool's
// name from the assistant call they answer.
func toLLM(msgs []chatMessage) ([]llm.Message, error) {
	out := make([]llm.Message, 0, len(msgs))
	names := map[string]string{}
	for i := range msgs {
		m := &msgs[i]
		parts, err := m.content()
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		lm := llm.Message{Content: parts}
		switch m.Role {
		case "system", "developer":
			lm.Role = llm.RoleSystem
		case "user":
			lm.Role = llm.RoleUser
		case "assistant":
			lm.Role = llm.RoleAssistant
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Function.Name == "" {
					return nil, fmt.Errorf("messages[%d].tool_calls[%d]: id and function.name are required", i, j)
				}
				args := c.Function.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				names[c.ID] = c.Function.Name
				lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(args)})
			}
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("messages[%d]: a tool message needs tool_call_id", i)
			}
			lm.Role, lm.ToolCallID, lm.ToolName = llm.RoleTool, m.ToolCallID, names[m.ToolCallID]
		default:
			return nil, fmt.Errorf("messages[%d]: role %q is not system, developer, user, assistant or tool", i, m.Role)
		}
		out = append(out, lm)
	}
	return out, nil
}

type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
}

type chatChoice struct {
	Index        int       `json:"index"`
	Message      *chatOut  `json:"message,omitempty"`
	Delta        *chatOut  `json:"delta,omitempty"`
	FinishReason *string   `json:"finish_reason"`
	Logprobs     *struct{} `json:"logprobs"`
}

type chatOut struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	ToolCalls []chatToolCall `json:"tool_calls,omitempty"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type modelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}
