package tools

import (
	"context"
	"encoding/json"
)

// Kind says where a tool comes from.
type Kind string

const (
	KindBuiltin Kind = "builtin"
	KindMCP     Kind = "mcp"
	KindOpenAPI Kind = "openapi"
)

// Origin identifies a tool by where it lives, independent of the name the
// catalogue gives it.
type Origin struct {
	Kind Kind `json:"kind"`
	// Server is the configured server name; empty for built-in tools.
	Server string `json:"server,omitempty"`
	// Name is the tool's own name at its origin (the MCP tool name, the
	// OpenAPI operation, the built-in's name).
	Name string `json:"name"`
}

// Annotations are behaviour hints, with the meaning and defaults of MCP's
// ToolAnnotations. A nil *Annotations in [Info] means the tool declared none.
type Annotations struct {
	Title string `json:"title,omitempty"`
	// ReadOnlyHint reports that the tool does not change its environment.
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: nil means the MCP default, true (meaningful only when
	// ReadOnlyHint is false).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool  `json:"idempotentHint,omitempty"`
	// OpenWorldHint: nil means the MCP default, true.
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether a declares the tool read-only. A nil a reports false.
func (a *Annotations) ReadOnly() bool { return a != nil && a.ReadOnlyHint }

// Destructive reports whether a tool with these annotations may destroy
// data: false for read-only tools, otherwise DestructiveHint with its MCP
// default of true. A nil a (no annotations) reports true.
func (a *Annotations) Destructive() bool {
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// Info describes a tool. InputSchema is always a JSON Schema object
// ({"type":"object",...}); OutputSchema is nil when the tool declares none.
type Info struct {
	// Name is the tool's name at its origin. The [Registry] assigns the
	// provider-safe catalogue name; see [Entry].
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
}

// ContentType names the kind of a [Content] block, with MCP's spelling.
type ContentType string

const (
	ContentText         ContentType = "text"
	ContentImage        ContentType = "image"
	ContentAudio        ContentType = "audio"
	ContentResource     ContentType = "resource"      // embedded resource: URI plus Text or Data
	ContentResourceLink ContentType = "resource_link" // a link the caller may read later
)

// Content is one block of a tool result. Which fields are set depends on Type:
// Text for text; Data and MIMEType for image and audio; URI, MIMEType and Text
// or Data for resource; URI, Name and MIMEType for resource_link.
type Content struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"`
	Data     []byte      `json:"data,omitempty"`
	MIMEType string      `json:"mimeType,omitempty"`
	URI      string      `json:"uri,omitempty"`
	Name     string      `json:"name,omitempty"`
	// Stored is set on a text or resource block whose text was too long to
	// hold in memory and went to the [OutputStore] as it was read; Text is
	// then empty, and the [Registry] shows the stored head and tail.
	Stored *StoredOutput `json:"stored,omitempty"`
}

// Result is what a call produced. IsError marks a tool-level failure that the
// model should see and may recover from (a bad path, a 404, a validation
// failure); it is not a Go error.
type Result struct {
	Content []Content `json:"content"`
	// Structured is the tool's structured output, when it has one.
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// StoredStructured is set instead of Structured when the structured
	// output was too long to hold in memory and went to the [OutputStore].
	StoredStructured *StoredOutput `json:"storedStructured,omitempty"`
	IsError          bool          `json:"isError,omitempty"`
}

// Text returns the concatenated text blocks of r, separated by newlines.
func (r *Result) Text() string {
	var n int
	for _, c := range r.Content {
		if c.Type == ContentText {
			n += len(c.Text) + 1
		}
	}
	b := make([]byte, 0, n)
	for _, c := range r.Content {
		if c.Type != ContentText {
			continue
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, c.Text...)
	}
	return string(b)
}

// ErrorResult returns a tool-error result with one text block.
func ErrorResult(msg string) *Result {
	return &Result{Content: []Content{{Type: ContentText, Text: msg}}, IsError: true}
}

// TextResult returns a successful result with one text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{{Type: ContentText, Text: text}}}
}

// Progress is a progress report from a running call. Total is 0 when unknown.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// CallRequest carries one call's arguments and its optional observers.
type CallRequest struct {
	// Arguments is a JSON object; nil or empty means {}.
	Arguments json.RawMessage
	// Progress, when non-nil, receives progress reports. It may be called
	// from another goroutine than Call's, never after Call returns, and must
	// not block.
	Progress func(Progress)
	// Output, when non-nil, takes texts too long to hold in memory: a tool
	// that reads a large result as a stream writes each text into
	// Output.NewText and returns what it gives. The [Registry] sets it on
	// every call.
	Output *OutputStore
}

// Tool is one callable tool.
//
// Implementations are safe for concurrent use. Call returns a [Result] with
// IsError for failures the model should see (including invalid arguments and
// remote errors), and a Go error only when the call could not be made at all
// in a way the caller must handle: the context ended ([context.Canceled],
// [context.DeadlineExceeded]) or the tool's backend is gone ([ErrUnavailable]).
// Call honours ctx: when ctx ends, it stops the work (for MCP tools, by
// sending notifications/cancelled) and returns promptly.
type Tool interface {
	Info() Info
	Call(ctx context.Context, req *CallRequest) (*Result, error)
}
