package mcphost

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// emptyObjectSchema stands in for a missing input schema, which the tools
// contract requires to be an object schema.
var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// infoFromMCP converts an SDK tool description into the catalogue's Info.
func infoFromMCP(t *mcp.Tool) (tools.Info, error) {
	in, err := rawSchema(t.InputSchema)
	if err != nil {
		return tools.Info{}, fmt.Errorf("encoding input schema of tool %q: %w", t.Name, err)
	}
	if in == nil {
		in = emptyObjectSchema
	}
	out, err := rawSchema(t.OutputSchema)
	if err != nil {
		return tools.Info{}, fmt.Errorf("encoding output schema of tool %q: %w", t.Name, err)
	}
	info := tools.Info{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  in,
		OutputSchema: out,
	}
	if a := t.Annotations; a != nil {
		info.Annotations = &tools.Annotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
		if info.Title == "" {
			info.Title = a.Title
		}
	}
	return info, nil
}

// rawSchema turns a schema the SDK decoded as any back into JSON; nil stays nil.
func rawSchema(s any) (json.RawMessage, error) {
	switch v := s.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(v) == 0 || string(v) == "null" {
			return nil, nil
		}
		return v, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

// resultFromMCP converts a tools/call result into the catalogue's Result.
func resultFromMCP(r *mcp.CallToolResult) (*tools.Result, error) {
	res := &tools.Result{IsError: r.IsError, Content: make([]tools.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		res.Content = append(res.Content, contentFromMCP(c))
	}
	if r.StructuredContent != nil {
		b, err := rawSchema(r.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("encoding structured content: %w", err)
		}
		res.Structured = b
	}
	return res, nil
}

// contentFromMCP converts one content block. Blocks of kinds the catalogue
// does not know (tool_use, tool_result) become text describing them, so
// nothing is silently dropped.
func contentFromMCP(c mcp.Content) tools.Content {
	switch v := c.(type) {
	case *mcp.TextContent:
		return tools.Content{Type: tools.ContentText, Text: v.Text}
	case *mcp.ImageContent:
		return tools.Content{Type: tools.ContentImage, Data: v.Data, MIMEType: v.MIMEType}
	case *mcp.AudioContent:
		return tools.Content{Type: tools.ContentAudio, Data: v.Data, MIMEType: v.MIMEType}
	case *mcp.ResourceLink:
		return tools.Content{Type: tools.ContentResourceLink, URI: v.URI, Name: v.Name, MIMEType: v.MIMEType}
	case *mcp.EmbeddedResource:
		out := tools.Content{Type: tools.ContentResource}
		if r := v.Resource; r != nil {
			out.URI, out.MIMEType, out.Text, out.Data = r.URI, r.MIMEType, r.Text, r.Blob
		}
		return out
	default:
		b, _ := json.Marshal(c)
		return tools.Content{Type: tools.ContentText, Text: string(b)}
	}
}

// contentToMCP converts a catalogue content block for a sampling reply.
func contentToMCP(c tools.Content) mcp.Content {
	switch c.Type {
	case tools.ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}
	case tools.ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType}
	default:
		return &mcp.TextContent{Text: c.Text}
	}
}
