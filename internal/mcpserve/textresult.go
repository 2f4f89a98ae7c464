package mcpserve

import (
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = appendJSONString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// appendJSONString appends s as encoding/json encodes a string, HTML
// escaping included: <, > and & as \u003c, \u003e and \u0026, U+2028 and
// U+2029 escaped, invalid UTF-8 as \ufffd. It is encoding/json's
// algorithm, without the allocation json.Marshal makes for each string
// (TestTextResultJSON and TestAppendJSONString compare the bytes).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
