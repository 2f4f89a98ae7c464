package textcall

import (
	"encoding/json"
	"strings"
)

// pythonCall reads a call written the way some models (Gemma among them)
// are trained to write tool code: name(key=value, ...), possibly as
// print(api.name(...)). Values are read by the JSON repairer, so strings in
// either quote, numbers, True/False/None, lists and dicts all work.
// Positional arguments have no parameter name and are refused.
func pythonCall(s string) (name string, args json.RawMessage, repaired, ok bool) {
	s = strings.TrimSpace(s)
	if inner, found := strings.CutPrefix(s, "print("); found && strings.HasSuffix(inner, ")") {
		s = strings.TrimSpace(inner[:len(inner)-1])
	}
	pos := 0
	ident := func(dots bool) string {
		start := pos
		for pos < len(s) {
			c := s[pos]
			if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || pos > start && (c >= '0' && c <= '9' || dots && c == '.') {
				pos++
				continue
			}
			break
		}
		return s[start:pos]
	}
	space := func() {
		for pos < len(s) && isSpace(s[pos]) {
			pos++
		}
	}
	full := ident(true)
	if full == "" || pos == len(s) || s[pos] != '(' {
		return "", nil, false, false
	}
	name = full[strings.LastIndexByte(full, '.')+1:]
	pos++
	out := []byte{'{'}
	for n := 0; ; n++ {
		space()
		if pos < len(s) && s[pos] == ')' {
			pos++
			break
		}
		if n > 0 {
			if pos == len(s) || s[pos] != ',' {
				return "", nil, false, false
			}
			pos++
			space()
			if pos < len(s) && s[pos] == ')' { // trailing comma
				pos++
				break
			}
		}
		key := ident(false)
		space()
		if key == "" || pos == len(s) || s[pos] != '=' {
			return "", nil, false, false
		}
		pos++
		space()
		val, used, fixed, err := repairValue(s[pos:], true)
		if err != nil {
			return "", nil, false, false
		}
		pos += used
		repaired = repaired || fixed
		if n > 0 {
			out = append(out, ',')
		}
		out = appendQuoted(out, key)
		out = append(out, ':')
		out = append(out, val...)
	}
	if strings.TrimSpace(s[pos:]) != "" {
		return "", nil, false, false
	}
	return name, append(out, '}'), repaired, true
}
