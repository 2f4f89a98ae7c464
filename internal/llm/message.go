package llm

import (
	"encoding/json"
	"strings"
)

// Role says who wrote a [Message].
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool marks the result of one tool call; see [Message.ToolCallID].
	RoleTool Role = "tool"
)

// PartType names the kind of a [Part].
type PartType string

const (
	PartText  PartType = "text"
	PartImage PartType = "image"
)

// Part is one block of a message's content. Text parts set Text. Image parts
// set MIMEType and Data (the raw bytes, not base64), or URL (an http(s) or
// data: URL) when the bytes are not at hand; adapters that cannot send a URL
// report an error rather than drop the image.
type Part struct {
	Type     PartType `json:"type"`
	Text     string   `json:"text,omitempty"`
	MIMEType string   `json:"mimeType,omitempty"`
	Data     []byte   `json:"data,omitempty"`
	URL      string   `json:"url,omitempty"`
	// URI, on a part the person attached from an MCP server's resource,
	// is that resource (switchboard://server/uri): the UI shows the part
	// as the resource. Adapters send the part's content and ignore it.
	URI string `json:"uri,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Type: PartText, Text: text} }

// ImagePart returns an image part holding the image's bytes.
func ImagePart(mimeType string, data []byte) Part {
	return Part{Type: PartImage, MIMEType: mimeType, Data: data}
}

// ImageURLPart returns an image part that refers to an image by URL.
func ImageURLPart(url string) Part { return Part{Type: PartImage, URL: url} }

// Message is one turn of a conversation.
//
// An assistant message may carry ToolCalls next to (or instead of) Content.
// A tool message (Role == RoleTool) is the result of exactly one call: its
// ToolCallID matches [ToolCall.ID], ToolName repeats the call's name (some
// wire formats need it), Content holds the result and IsError marks a failed
// call whose error text the model should see. Adapters group consecutive tool
// messages as their wire format needs (Anthropic wants them in one user turn).
type Message struct {
	Role       Role       `json:"role"`
	Content    []Part     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	IsError    bool       `json:"isError,omitempty"`
}

// Text returns the concatenated text parts of m.
func (m *Message) Text() string {
	if len(m.Content) == 1 && m.Content[0].Type == PartText {
		return m.Content[0].Text
	}
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// UserText returns a user message holding text.
func UserText(text string) Message {
	return Message{Role: RoleUser, Content: []Part{TextPart(text)}}
}

// AssistantText returns an assistant message holding text.
func AssistantText(text string) Message {
	return Message{Role: RoleAssistant, Content: []Part{TextPart(text)}}
}

// ToolResult returns the tool message answering call with text.
func ToolResult(call ToolCall, text string, isError bool) Message {
	return Message{
		Role:       RoleTool,
		Content:    []Part{TextPart(text)},
		ToolCallID: call.ID,
		ToolName:   call.Name,
		IsError:    isError,
	}
}

// MaxToolArguments bounds the arguments of one streamed tool call; an
// adapter reports a larger one as a malformed response rather than grow
// without limit.
const MaxToolArguments = 16 << 20

// ToolCall is one complete call the model asked for. Arguments is a JSON
// object; adapters turn an empty or missing argument string into "{}" and
// report malformed argument JSON as it came, leaving validation to the caller.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec offers a tool to the model. Parameters is a JSON Schema object;
// nil means a tool without parameters.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolChoiceMode says whether and how the model must use tools.
type ToolChoiceMode string

const (
	// ToolChoiceAuto (also the zero value) lets the model decide.
	ToolChoiceAuto ToolChoiceMode = "auto"
	// ToolChoiceNone forbids tool calls although tools are offered.
	ToolChoiceNone ToolChoiceMode = "none"
	// ToolChoiceRequired makes the model call at least one tool.
	ToolChoiceRequired ToolChoiceMode = "required"
	// ToolChoiceTool makes the model call the tool named in [ToolChoice.Name].
	ToolChoiceTool ToolChoiceMode = "tool"
)

// ToolChoice constrains tool use. The zero value means auto.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
	Name string         `json:"name,omitempty"`
}

// Request is one call to a model.
//
// System is the system prompt; messages with RoleSystem in Messages are
// appended to it (in order, separated by a blank line) by adapters whose wire
// format has a single system slot. MaxTokens zero means the adapter's
// default; Temperature nil means the provider's default. Adapters never
// modify a Request, so one may be reused.
type Request struct {
	Model       string     `json:"model,omitempty"`
	System      string     `json:"system,omitempty"`
	Messages    []Message  `json:"messages"`
	Tools       []ToolSpec `json:"tools,omitempty"`
	ToolChoice  ToolChoice `json:"toolChoice,omitzero"`
	Temperature *float64   `json:"temperature,omitempty"`
	MaxTokens   int        `json:"maxTokens,omitempty"`
	Stop        []string   `json:"stop,omitempty"`
}

// SystemPrompt returns r.System followed by the text of every system message
// in r.Messages, separated by blank lines.
func (r *Request) SystemPrompt() string {
	s := r.System
	for i := range r.Messages {
		m := &r.Messages[i]
		if m.Role != RoleSystem {
			continue
		}
		if t := m.Text(); t != "" {
			if s != "" {
				s += "\n\n"
			}
			s += t
		}
	}
	return s
}
