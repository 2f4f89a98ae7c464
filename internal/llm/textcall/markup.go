package textcall

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// xmlStyle is one XML-like way of writing calls: an element per call whose
// opener carries the tool name, holding an element per parameter.
type xmlStyle struct {
	invoke, invokeEnd string
	param, paramEnd   string
}

// xmlStyles are the XML-like families, by the opener of a call.
var xmlStyles = [...]xmlStyle{
	// Qwen3-Coder, Qwen3.5, Nemotron 3, Seed-OSS, Functionary v3.1.
	{"<function=", "</function>", "<parameter=", "</parameter>"},
	// Hermes variant <function name="x">{...}</function>.
	{"<function name=", "</function>", "<parameter name=", "</parameter>"},
	// MiniMax-M2.
	{"<invoke name=", "</invoke>", "<parameter name=", "</parameter>"},
	// DeepSeek V3.2 DSML.
	{"<｜DSML｜invoke name=", "</｜DSML｜invoke>", "<｜DSML｜parameter name=", "</｜DSML｜parameter>"},
}

// markupCalls reads a block's content written as XML-like elements, or
// GLM's name followed by <arg_key>/<arg_value> pairs, or a bare tool name.
// ok is false when the content is none of these.
func (p *Parser) markupCalls(content, raw string) ([]Part, bool) {
	c := strings.TrimSpace(content)
	for i := range xmlStyles {
		if st := &xmlStyles[i]; strings.Contains(c, st.invoke) {
			return p.invokes(c, st, raw), true
		}
	}
	if k := strings.Index(c, "<arg_key>"); k >= 0 || isName(c) {
		if k < 0 {
			k = len(c)
		}
		name := strings.TrimSpace(c[:k])
		args := p.glmArgs(toolName(name), c[k:])
		return []Part{p.makeCall(name, args, raw, false)}, true
	}
	return nil, false
}

// isName reports whether s is a lone tool name ("get_time", "functions.x").
func isName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentPart(s[i]) && s[i] != '.' && s[i] != ':' {
			return false
		}
	}
	return true
}

// invokes reads every call element of style st in s.
func (p *Parser) invokes(s string, st *xmlStyle, raw string) []Part {
	var parts []Part
	for {
		i := strings.Index(s, st.invoke)
		if i < 0 {
			break
		}
		s = s[i+len(st.invoke):]
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			parts = append(parts, malformedPart(raw, "the call element is not closed with >"))
			break
		}
		name := attrName(s[:gt])
		s = s[gt+1:]
		body := s
		if end := strings.Index(s, st.invokeEnd); end >= 0 {
			body, s = s[:end], s[end+len(st.invokeEnd):]
		} else {
			s = ""
		}
		tool := toolName(name)
		var args json.RawMessage
		if b := strings.TrimSpace(body); strings.HasPrefix(b, "{") {
			out, _, _, err := repairValue(b, true)
			if err != nil {
				parts = append(parts, malformedPart(raw, err.Error()))
				continue
			}
			args = out
		} else {
			args = p.xmlArgs(tool, body, st)
		}
		parts = append(parts, p.makeCall(name, args, raw, false))
	}
	return parts
}

// attrName reads the name from an element head: `get_weather`,
// `"get_weather"` or `"p" string="true"` (the first value).
func attrName(head string) string {
	head = strings.TrimSpace(head)
	if head != "" && (head[0] == '"' || head[0] == '\'') {
		if end := strings.IndexByte(head[1:], head[0]); end >= 0 {
			return head[1 : end+1]
		}
		return head[1:]
	}
	if i := strings.IndexAny(head, " \t\n"); i >= 0 {
		return head[:i]
	}
	return head
}

// xmlArgs reads the parameter elements of one call into a JSON object.
func (p *Parser) xmlArgs(tool, body string, st *xmlStyle) json.RawMessage {
	out := []byte{'{'}
	n := 0
	for {
		i := strings.Index(body, st.param)
		if i < 0 {
			break
		}
		body = body[i+len(st.param):]
		gt := strings.IndexByte(body, '>')
		if gt < 0 {
			break
		}
		head := body[:gt]
		name := attrName(head)
		body = body[gt+1:]
		val := body
		if end := strings.Index(body, st.paramEnd); end >= 0 {
			val, body = body[:end], body[end+len(st.paramEnd):]
		} else if next := strings.Index(body, st.param); next >= 0 {
			val, body = body[:next], body[next:]
		} else {
			body = ""
		}
		val = trimOneNewline(val)
		asString := ""
		if strings.Contains(head, `string="true"`) {
			asString = "true"
		} else if strings.Contains(head, `string="false"`) {
			asString = "false"
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = appendString(out, name)
		out = append(out, ':')
		out = append(out, p.paramValue(tool, name, val, asString)...)
	}
	return append(out, '}')
}

// glmArgs reads GLM's <arg_key>k</arg_key><arg_value>v</arg_value> pairs.
func (p *Parser) glmArgs(tool, s string) json.RawMessage {
	out := []byte{'{'}
	n := 0
	for {
		k := strings.Index(s, "<arg_key>")
		if k < 0 {
			break
		}
		s = s[k+len("<arg_key>"):]
		ke := strings.Index(s, "</arg_key>")
		if ke < 0 {
			break
		}
		key := strings.TrimSpace(s[:ke])
		s = s[ke+len("</arg_key>"):]
		v := strings.Index(s, "<arg_value>")
		if v < 0 {
			break
		}
		s = s[v+len("<arg_value>"):]
		val := s
		if ve := strings.Index(s, "</arg_value>"); ve >= 0 {
			val, s = s[:ve], s[ve+len("</arg_value>"):]
		} else {
			s = ""
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = appendString(out, key)
		out = append(out, ':')
		out = append(out, p.paramValue(tool, key, val, "")...)
	}
	return append(out, '}')
}

// trimOneNewline removes the newline the XML families put after an opener
// and before a closer, and nothing else of the value.
func trimOneNewline(s string) string {
	s = strings.TrimPrefix(s, "\r")
	s = strings.TrimPrefix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// paramValue turns a parameter written as text into JSON. asString is
// "true" or "false" when the model said which (DSML); otherwise the tool's
// schema decides, and without a schema a value that reads as a JSON
// number, boolean, null, object or array is taken as that.
func (p *Parser) paramValue(tool, param, val, asString string) json.RawMessage {
	str := func() json.RawMessage { return appendString(nil, val) }
	if asString == "true" {
		return str()
	}
	typ := ""
	if resolved, ok := p.resolve(tool); ok {
		typ = p.types[resolved][param]
	}
	if typ == "string" && asString == "" {
		return str()
	}
	t := strings.TrimSpace(val)
	if t == "" {
		return str()
	}
	out, n, _, err := repairValue(t, true)
	if err != nil || n != len(t) {
		return str()
	}
	if typ == "" && asString == "" && t[0] == '"' {
		// A quoted value with no schema is most likely text that happens
		// to start with a quote.
		return str()
	}
	return out
}

func malformedPart(raw, reason string) Part {
	return Part{Call: &Call{Raw: raw, Arguments: json.RawMessage("{}"), Err: &MalformedCallError{Reason: reason}}}
}

// appendString writes s as a JSON string, escaping what must be escaped
// and replacing invalid UTF-8, for values the families write as raw text.
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			out = append(out, '\\', byte(r))
		case r < 0x20:
			out = appendControl(out, byte(r))
		default:
			out = utf8.AppendRune(out, r)
		}
	}
	return append(out, '"')
}
