package mcpserve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/jsonstring"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// textResultJSON encodes res as the SDK does, when every content of it is
// plain text (no annotations, no _meta) and it has no structured content
// or _meta of its own: what most tools answer. The SDK's MarshalJSON
// builds a wire struct per content and encodes through reflection twice;
// this was 3% of a proxied call's CPU. ok is false for any other result,
// which the caller encodes with encoding/json. The output is the SDK's
// byte for byte (TestTextResultJSON).
func textResultJSON(res *mcp.CallToolResult) (b []byte, ok bool) {
	return appendTextResult(make([]byte, 0, textResultSize(res)), res)
}

// textResultSize is about what textResultJSON writes for res: enough that
// the buffer seldom grows.
func textResultSize(res *mcp.CallToolResult) int {
	n := 32
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += 32 + len(t.Text) + len(t.Text)/8
		}
	}
	return n
}

// appendTextResult is textResultJSON appending to b.
func appendTextResult(b []byte, res *mcp.CallToolResult) ([]byte, bool) {
	if res.Meta != nil || res.StructuredContent != nil || res.Content == nil {
		return nil, false
	}
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		t, isText := c.(*mcp.TextContent)
		if !isText || t.Meta != nil || t.Annotations != nil {
			return nil, false
		}
		b = appendTextContent(b, i, t.Text)
	}
	return closeTextResult(b, res.IsError), true
}

// catalogueTextSize is textResultSize for a catalogue result.
func catalogueTextSize(res *tools.Result) int {
	n := 32
	for _, c := range res.Content {
		n += 32 + len(c.Text) + len(c.Text)/8
	}
	return n
}

// appendCatalogueText is appendTextResult for the catalogue's result,
// which the direct path writes without making the SDK's types first: the
// bytes are those of the SDK's encoding of mcpResult(res)
// (TestCatalogueTextAsSDK). ok is false unless every content is text and
// there is no structured content.
func appendCatalogueText(b []byte, res *tools.Result) ([]byte, bool) {
	if len(res.Structured) > 0 || res.Content == nil {
		return nil, false
	}
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		if c.Type != tools.ContentText {
			return nil, false
		}
		b = appendTextContent(b, i, c.Text)
	}
	return closeTextResult(b, res.IsError), true
}

// appendTextContent appends the i-th text block of a result.
func appendTextContent(b []byte, i int, text string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(b, `{"type":"text","text":`...)
	b = jsonstring.Append(b, text, true)
	return append(b, '}')
}

// closeTextResult ends a text result's object.
func closeTextResult(b []byte, isError bool) []byte {
	b = append(b, ']')
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}
