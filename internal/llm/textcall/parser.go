package textcall

import (
	"encoding/json"
	"strings"
)

// Parser finds tool calls in model replies. It knows the catalogue's tool
// names, so that JSON the model merely shows the user is not taken for a
// call. A Parser is immutable and safe for concurrent use; each reply being
// streamed needs its own [StreamParser].
type Parser struct {
	names []string
	exact map[string]bool
	// fold maps a lower-cased name to its catalogue name, or to "" when two
	// names fold to the same key.
	fold map[string]string
	// suffix maps the lower-cased part after the last "__" of a namespaced
	// name ("files__read_file" -> "read_file") in the same way.
	suffix map[string]string
	// types maps a tool to its parameters' JSON types, from its schema,
	// for families that write every value as text (Qwen3-Coder XML, GLM).
	types map[string]map[string]string
}

// NewParser returns a parser for a catalogue with the given tool names. The
// order of names is kept for the lists shown to the model.
func NewParser(names []string) *Parser {
	p := &Parser{
		names:  append([]string(nil), names...),
		exact:  make(map[string]bool, len(names)),
		fold:   make(map[string]string, len(names)),
		suffix: make(map[string]string),
	}
	addUnique := func(m map[string]string, k, name string) {
		if prev, ok := m[k]; ok && prev != name {
			m[k] = ""
			return
		}
		m[k] = name
	}
	for _, n := range names {
		p.exact[n] = true
		addUnique(p.fold, strings.ToLower(n), n)
		if i := strings.LastIndex(n, "__"); i >= 0 && i+2 < len(n) {
			addUnique(p.suffix, strings.ToLower(n[i+2:]), n)
		}
	}
	return p
}

// Names returns the catalogue names the parser was built with.
func (p *Parser) Names() []string { return append([]string(nil), p.names...) }

// resolve maps a name as the model wrote it to a catalogue name: exactly,
// then ignoring case, then by the tool's own name without its "server__"
// prefix. Each fallback is used only when it names exactly one tool.
func (p *Parser) resolve(name string) (string, bool) {
	if p.exact[name] {
		return name, true
	}
	low := strings.ToLower(name)
	if n := p.fold[low]; n != "" {
		return n, true
	}
	if n := p.suffix[low]; n != "" {
		return n, true
	}
	if i := strings.LastIndex(low, "__"); i >= 0 {
		if n := p.suffix[low[i+2:]]; n != "" {
			return n, true
		}
	}
	// Templates address tools as "functions.get_weather" (harmony, Kimi)
	// and number them ("get_weather:0"); models carry that over.
	if bare := toolName(name); bare != name && bare != "" {
		return p.resolve(bare)
	}
	return "", false
}

// Parse splits a complete reply into text and calls. It gives the same
// result as feeding text to a [StreamParser] in any pieces and closing it,
// with adjacent text parts joined.
func (p *Parser) Parse(text string) []Part {
	_, parts := p.NewStream().run(text, true)
	return parts
}

// blockCalls reads the calls in the content of a block: one or more JSON
// values, each a call object or an array of them, optionally wrapped in a
// code fence. In a tagged block every value becomes a call, malformed or not.
// In an untagged block the result is ok only when every value is a runnable
// call of a known tool.
func (p *Parser) blockCalls(content, raw string, mode strictness) ([]Part, bool) {
	content = stripInnerFence(strings.TrimSpace(content))
	if content != "" && content[0] == '[' && !strings.HasPrefix(content, "[{") {
		if parts, ok := p.pyCalls(content, raw, mode); ok {
			return parts, true
		}
	}
	if content != "" && content[0] != '{' && content[0] != '[' {
		if parts, ok := p.markupCalls(content, raw); ok {
			if mode == untagged && !allRunnable(parts) {
				return nil, false
			}
			return parts, true
		}
		if parts, ok := p.pyCalls(content, raw, mode); ok && len(parts) > 1 {
			return parts, true
		}
		if name, args, repaired, ok := pythonCall(content); ok {
			c := &Call{Name: name, Arguments: args, Raw: raw, Repaired: repaired}
			if resolved, known := p.resolve(name); known {
				c.Name = resolved
			} else {
				c.Err = &UnknownToolError{Name: name, Available: p.names}
			}
			if mode == untagged && c.Err != nil {
				return nil, false
			}
			return []Part{{Call: c}}, true
		}
	}
	if mode == tagged && content != "" && content[0] != '{' && content[0] != '[' {
		// A label before the JSON ("json\n{...}", "call: {...}") inside an
		// explicit block does not change what the block means.
		if i := strings.IndexByte(content, '{'); i >= 0 {
			content = content[i:]
		}
	}
	var parts []Part
	malformed := func(reason string) {
		parts = append(parts, Part{Call: &Call{Raw: raw, Arguments: json.RawMessage("{}"), Err: &MalformedCallError{Reason: reason}}})
	}
	pos := 0
	for {
		for pos < len(content) && (isSpace(content[pos]) || content[pos] == ',') {
			pos++
		}
		if pos == len(content) {
			break
		}
		out, n, repaired, err := repairValue(content[pos:], true)
		if err != nil {
			if mode == untagged {
				return nil, false
			}
			malformed(err.Error())
			break
		}
		pos += n
		values := []json.RawMessage{out}
		if out[0] == '[' {
			values = nil
			if err := json.Unmarshal(out, &values); err != nil || len(values) == 0 {
				if mode == untagged {
					return nil, false
				}
				malformed("expected a call object, found an empty or invalid array")
				continue
			}
		}
		for _, v := range values {
			c, err := p.callFromValue(v, mode)
			if mode == untagged && (err != nil || c.Err != nil) {
				return nil, false
			}
			if err != nil {
				malformed(err.Error())
				continue
			}
			c.Raw = raw
			c.Repaired = c.Repaired || repaired
			parts = append(parts, Part{Call: c})
		}
	}
	if len(parts) == 0 {
		if mode == untagged {
			return nil, false
		}
		malformed("the block is empty")
	}
	return parts, true
}

// stripInnerFence removes a code fence around a block's content, as in
// <tool_code>```json {...} ```</tool_code>.
func stripInnerFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = s[3:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], "{[") {
		s = s[i+1:]
	} else {
		s = strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
	}
	s = strings.TrimSpace(s)
	return strings.TrimSpace(strings.TrimSuffix(s, "```"))
}

// allRunnable reports whether parts holds at least one call and every call
// can run.
func allRunnable(parts []Part) bool {
	for _, pt := range parts {
		if pt.Call == nil || pt.Call.Err != nil {
			return false
		}
	}
	return len(parts) > 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first byte of buf at or after i that
// is not white space, or len(buf).
func skipSpace(buf string, i int) int {
	for i < len(buf) && isSpace(buf[i]) {
		i++
	}
	return i
}

// atEnd is what a scanner returns when buf ran out where its body should
// begin: at the end of the reply the marker is dropped (all of buf
// consumed, no part); otherwise it waits for more text.
func atEnd(buf string, final bool) (int, []Part, bool) {
	if final {
		return len(buf), nil, false
	}
	return 0, nil, true
}
