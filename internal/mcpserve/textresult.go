package mcpserve

import (
	"github.com/switchboard-mcp/switchboard/internal/jsonstring"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// textResultSize is about what appendTextResult writes for res: enough
// that the buffer seldom grows.
func textResultSize(res *tools.Result) int {
	n := 32
	for _, c := range res.Content {
		n += 32 + len(c.Text) + len(c.Text)/8
	}
	return n
}

// appendTextResult appends the catalogue's result res as the SDK encodes
// mcpResult(res), when every content of it is text and it has no
// structured content: what most tools answer. The direct path writes it
// without making the SDK's result first, whose MarshalJSON builds a wire
// struct per content and encodes through reflection twice (3% of a
// proxied call's CPU); its strings are escaped as they are written. ok is
// false for any other result, which the caller encodes with encoding/json.
// The bytes are the SDK's (TestTextResultAsSDK).
func appendTextResult(b []byte, res *tools.Result) ([]byte, bool) {
	if len(res.Structured) > 0 || res.Content == nil {
		return nil, false
	}
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		if c.Type != tools.ContentText {
			return nil, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = jsonstring.Append(b, c.Text, true)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}
