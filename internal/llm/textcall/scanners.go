package textcall

import (
	"errors"
	"strings"
)

// The scanners here read families written without special tokens: their
// start is ordinary text, so each checks enough of it to be sure before it
// holds anything back for long.

// maxLead bounds what is held back while deciding whether ordinary text
// starts a call (a tool name, ">>>name").
const maxLead = 128

// identCall reads, at the start of the reply or right after a call, a tool
// name followed by its arguments: "functions.get_weather:0{...}" (Kimi K2
// with its tokens stripped), "get_weather\n{...}" (Functionary v3.2's
// first call), "get_weather[ARGS]{...}" (Mistral's later calls) or
// "get_weather(city=\"Paris\")" (Llama 3.2 pythonic, unbracketed). The
// name must be a known tool. It returns 0 and false when buf does not start
// that way.
func (s *StreamParser) identCall(buf string, final bool) (int, []Part, bool) {
	i := 0
	for i < len(buf) && i <= maxLead && (isIdentPart(buf[i]) || buf[i] == '.' || buf[i] == ':') {
		i++
	}
	if i > maxLead {
		return 0, nil, false
	}
	if i == len(buf) {
		if final {
			return 0, nil, false
		}
		return 0, nil, true
	}
	word, rest := buf[:i], buf[i:]
	if word == "all" && rest[0] == '\n' {
		// Functionary v3.2 addresses plain text to "all".
		return i + 1, nil, false
	}
	if _, ok := s.p.resolve(toolName(word)); !ok {
		return 0, nil, false
	}
	j := 0
	for j < len(rest) && j < maxLead && isSpace(rest[j]) {
		j++
	}
	if a, partial := matchTag(rest[j:], []string{"[ARGS]", "<|tool_call_argument_begin|>"}); a > 0 {
		j += a
	} else if partial && !final {
		return 0, nil, true
	}
	if j == len(rest) {
		if final {
			return 0, nil, false
		}
		return 0, nil, true
	}
	switch rest[j] {
	case '{':
		val, used, repaired, err := repairValue(rest[j:], final)
		if errors.Is(err, errIncomplete) {
			return 0, nil, true
		}
		if err != nil {
			return 0, nil, false
		}
		raw := buf[:i+j+used]
		return len(raw), []Part{s.p.makeCall(word, val, raw, repaired)}, false
	case '(':
		end := balancedEnd(rest[j:])
		if end < 0 {
			if final || len(rest) > maxPyList {
				return 0, nil, false
			}
			return 0, nil, true
		}
		raw := buf[:i+j+end]
		name, args, repaired, ok := pythonCall(raw)
		if !ok {
			return 0, nil, false
		}
		return len(raw), []Part{s.p.makeCall(name, args, raw, repaired)}, false
	}
	return 0, nil, false
}

// maxInline bounds an inline code span.
const maxInline = 4096

// inlineCode reads a `span`: what the model quotes in inline code is shown,
// never run. A backtick without its pair is plain text.
func (s *StreamParser) inlineCode(buf string, final bool) (int, []Part, bool) {
	if end := strings.IndexByte(buf[1:], '`'); end >= 0 {
		span := buf[:end+2]
		if len(span) > maxInline || strings.Contains(span, "\n\n") {
			return 1, textPart("`"), false
		}
		return len(span), textPart(span), false
	}
	if final || len(buf) > maxInline || strings.Contains(buf, "\n\n") {
		return 1, textPart("`"), false
	}
	return 0, nil, true
}

// maxPyList bounds a pythonic call list.
const maxPyList = 1 << 16

// bracket handles '[': Mistral's [TOOL_CALLS], or a pythonic list of calls
// [get_weather(location="Paris"), ...] (Llama 4, Llama 3.2), which counts
// only when every element is a call to a known tool.
func (s *StreamParser) bracket(buf string, final bool) (int, []Part, bool) {
	if n, partial := matchTag(buf, []string{"[TOOL_CALLS]"}); n > 0 {
		return s.mistral(buf, n, final)
	} else if partial && !final {
		return 0, nil, true
	}
	// Magistral reasons between [THINK] and [/THINK].
	if n, partial := matchTag(buf, []string{"[THINK]", "[/THINK]"}); n > 0 {
		kind := kindThinkOpen
		if buf[1] == '/' {
			kind = kindThinkClose
		}
		return s.family(&marker{open: buf[:n], kind: kind, close: "[/THINK]"}, buf, final)
	} else if partial && !final {
		return 0, nil, true
	}
	i := 1
	for i < len(buf) && i <= maxLead && isSpace(buf[i]) {
		i++
	}
	for i < len(buf) && i <= maxLead && (isIdentPart(buf[i]) || buf[i] == '.') {
		i++
	}
	if i > maxLead {
		return 1, textPart("["), false
	}
	if i == len(buf) {
		if final {
			return 1, textPart("["), false
		}
		return 0, nil, true
	}
	if buf[i] != '(' || i == 1 || !isIdentStart(strings.TrimSpace(buf[1:i])[0]) {
		return 1, textPart("["), false
	}
	end := balancedEnd(buf)
	if end < 0 {
		if final || len(buf) > maxPyList {
			// Decided: count the scan against the reply's budget, as for
			// bare JSON, so "[a(" repeated cannot make the work quadratic.
			s.bareWork += min(len(buf), maxPyList)
			return 1, textPart("["), false
		}
		s.w = waitForObject(buf)
		return 0, nil, true
	}
	s.bareWork += end
	if end > maxPyList {
		return 1, textPart("["), false
	}
	parts, ok := s.p.pyCalls(buf[1:end-1], buf[:end], untagged)
	if !ok {
		return 1, textPart("["), false
	}
	return end, parts, false
}

// mistral reads what follows [TOOL_CALLS]: a JSON list of calls, or
// name[ARGS]{...} (later Mistral templates), or name{...}.
func (s *StreamParser) mistral(buf string, n int, final bool) (int, []Part, bool) {
	i := skipSpace(buf, n)
	if i == len(buf) {
		return atEnd(buf, final)
	}
	if buf[i] == '[' || buf[i] == '{' {
		_, used, _, err := repairValue(buf[i:], final)
		if errors.Is(err, errIncomplete) {
			return 0, nil, true
		}
		if err != nil {
			return n, nil, false
		}
		raw := buf[:i+used]
		parts, _ := s.p.blockCalls(buf[i:i+used], raw, tagged)
		return len(raw), parts, false
	}
	k := i
	for k < len(buf) && (isIdentPart(buf[k]) || buf[k] == '.') {
		k++
	}
	name := buf[i:k]
	if name == "" {
		return n, nil, false
	}
	for _, tag := range [...]string{"[CALL_ID]", "[ARGS]"} {
		if k == len(buf) {
			break
		}
		a, partial := matchTag(buf[k:], []string{tag})
		if partial && !final {
			return 0, nil, true
		}
		k += a
		if tag == "[CALL_ID]" && a > 0 {
			for k < len(buf) && buf[k] != '[' && buf[k] != '{' {
				k++
			}
		}
	}
	if k == len(buf) {
		if final {
			return n, nil, false
		}
		return 0, nil, true
	}
	val, used, repaired, err := repairValue(buf[k:], final)
	if errors.Is(err, errIncomplete) {
		return 0, nil, true
	}
	if err != nil {
		return n, nil, false
	}
	raw := buf[:k+used]
	return len(raw), []Part{s.p.makeCall(name, val, raw, repaired)}, false
}

// arrows reads Functionary v3.2's ">>>name\n{...}"; ">>>all\n" introduces
// plain text.
func (s *StreamParser) arrows(buf string, final bool) (int, []Part, bool) {
	if !strings.HasPrefix(buf, ">>>") {
		if (buf == ">" || buf == ">>") && !final {
			return 0, nil, true
		}
		return 1, textPart(">"), false
	}
	nl := strings.IndexByte(buf[3:min(len(buf), 3+maxLead+1)], '\n')
	if nl < 0 {
		if final || len(buf) > 3+maxLead {
			return 3, textPart(">>>"), false
		}
		return 0, nil, true
	}
	name := strings.TrimSpace(buf[3 : 3+nl])
	k := 3 + nl + 1
	if name == "all" {
		return k, nil, false
	}
	if name == "" || !isIdentStart(name[0]) {
		return 3, textPart(">>>"), false
	}
	for k < len(buf) && isSpace(buf[k]) {
		k++
	}
	if k == len(buf) {
		if final {
			return 3, textPart(">>>"), false
		}
		return 0, nil, true
	}
	if buf[k] != '{' {
		return 3, textPart(">>>"), false
	}
	val, used, repaired, err := repairValue(buf[k:], final)
	if errors.Is(err, errIncomplete) {
		return 0, nil, true
	}
	if err != nil {
		return 3, textPart(">>>"), false
	}
	raw := buf[:k+used]
	return len(raw), []Part{s.p.makeCall(name, val, raw, repaired)}, false
}

// balancedEnd returns the index just after the bracket that closes the one
// at s[0], through quoted strings, or -1 when s ends first.
func balancedEnd(s string) int {
	depth := 0
	var quote byte
	esc := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// kimiPrefix starts a Kimi K2 call whose special tokens the server
// stripped: "functions.get_weather:0{...}", which may follow prose.
const kimiPrefix = "functions."

func (s *StreamParser) kimiStripped(buf string, final bool) (int, []Part, bool) {
	if len(buf) < len(kimiPrefix) {
		if final {
			return len(buf), textPart(buf), false
		}
		return 0, nil, true
	}
	n, parts, more := s.identCall(buf, final)
	if n > 0 || more {
		return n, parts, more
	}
	return 1, textPart(buf[:1]), false
}
