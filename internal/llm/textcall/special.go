package textcall

import (
	"encoding/json"
	"strings"
)

// deepseekCalls reads DeepSeek's calls: per call, R1/V3
// "function<｜tool▁sep｜>name\n```json\n{...}\n```" or V3.1
// "name<｜tool▁sep｜>{...}", between <｜tool▁call▁begin｜> and
// <｜tool▁call▁end｜>.
func (p *Parser) deepseekCalls(content, raw string) []Part {
	const begin, end, sep = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
	// Spellings seen from servers that decode the special tokens
	// differently; llama.cpp accepts the same.
	content = strings.NewReplacer(
		"<｜tool_call_begin｜>", begin, "<｜tool call begin｜>", begin, "<|tool▁call▁begin|>", begin,
		"<｜tool_call_end｜>", end, "<｜tool call end｜>", end, "<|tool▁call▁end|>", end,
		"<｜tool_sep｜>", sep, "<｜tool sep｜>", sep, "<|tool▁sep|>", sep,
	).Replace(content)
	segs := segments(content, begin, end)
	if len(segs) == 0 && strings.Contains(content, sep) {
		segs = append(segs, content)
	}
	var parts []Part
	for _, seg := range segs {
		k := strings.Index(seg, sep)
		if k < 0 {
			parts = append(parts, malformedPart(raw, "no <｜tool▁sep｜> in the call"))
			continue
		}
		name, args := strings.TrimSpace(seg[:k]), seg[k+len(sep):]
		if name == "function" {
			nl := strings.IndexByte(args, '\n')
			if nl < 0 {
				nl = len(args)
			}
			name, args = strings.TrimSpace(args[:nl]), args[nl:]
		}
		parts = append(parts, p.jsonArgsCall(name, args, raw))
	}
	return parts
}

// segments returns what follows each begin in content, up to its end (or
// to the end of content for the last one, left open).
func segments(content, begin, end string) []string {
	var segs []string
	for {
		i := strings.Index(content, begin)
		if i < 0 {
			return segs
		}
		content = content[i+len(begin):]
		seg := content
		if e := strings.Index(content, end); e >= 0 {
			seg, content = content[:e], content[e+len(end):]
		} else {
			content = ""
		}
		segs = append(segs, seg)
	}
}

// jsonArgsCall makes a call from a name and arguments written as JSON,
// perhaps fenced.
func (p *Parser) jsonArgsCall(name, args, raw string) Part {
	args = stripInnerFence(strings.TrimSpace(args))
	if args == "" {
		return p.makeCall(name, nil, raw, false)
	}
	out, _, repaired, err := repairValue(args, true)
	if err != nil {
		return malformedPart(raw, err.Error())
	}
	return p.makeCall(name, out, raw, repaired)
}

// kimiCalls reads Kimi K2's "<|tool_call_begin|>functions.x:0
// <|tool_call_argument_begin|>{...}<|tool_call_end|>" calls.
func (p *Parser) kimiCalls(content, raw string) []Part {
	const begin, arg, end = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
	var parts []Part
	for _, seg := range segments(content, begin, end) {
		k := strings.Index(seg, arg)
		if k < 0 {
			parts = append(parts, malformedPart(raw, "no <|tool_call_argument_begin|> in the call"))
			continue
		}
		parts = append(parts, p.jsonArgsCall(seg[:k], seg[k+len(arg):], raw))
	}
	return parts
}

// gemmaCalls reads Gemma's "call:name{key:<|"|>text<|"|>,n:3}" (Gemma 4)
// and "call:name{key:<escape>text<escape>}" (FunctionGemma): keys are
// bare, strings are delimited by a token instead of quotes.
func (p *Parser) gemmaCalls(content, raw string) []Part {
	var parts []Part
	s := strings.TrimSpace(content)
	for s != "" {
		s = strings.TrimSpace(strings.TrimPrefix(s, "call:"))
		b := strings.IndexByte(s, '{')
		if b < 0 {
			if isName(s) {
				parts = append(parts, p.makeCall(s, nil, raw, false))
			} else {
				parts = append(parts, malformedPart(raw, "expected call:name{...}"))
			}
			break
		}
		name := strings.TrimSpace(s[:b])
		js := gemmaJSON(s[b:])
		out, n, repaired, err := repairValue(js, true)
		if err != nil {
			parts = append(parts, malformedPart(raw, err.Error()))
			break
		}
		parts = append(parts, p.makeCall(name, out, raw, repaired))
		s = strings.TrimLeft(js[n:], " \t\r\n,;")
	}
	return parts
}

// gemmaJSON rewrites Gemma's string delimiters as JSON strings, so the
// text inside may hold quotes and braces.
func gemmaJSON(s string) string {
	var out []byte
	for {
		i, dl := indexDelim(s)
		if i < 0 {
			return string(append(out, s...))
		}
		out = append(out, s[:i]...)
		s = s[i+dl:]
		j, dl2 := indexDelim(s)
		if j < 0 {
			return string(appendString(out, s))
		}
		out = appendString(out, s[:j])
		s = s[j+dl2:]
	}
}

func indexDelim(s string) (int, int) {
	a, b := strings.Index(s, `<|"|>`), strings.Index(s, "<escape>")
	switch {
	case a < 0 && b < 0:
		return -1, 0
	case b < 0 || a >= 0 && a < b:
		return a, len(`<|"|>`)
	}
	return b, len("<escape>")
}

// pyCalls reads calls written as Python: "f(a=1), g(b='x')" or one per
// line, possibly inside [ ]. untagged requires every one to be a call to a
// known tool.
func (p *Parser) pyCalls(content, raw string, mode strictness) ([]Part, bool) {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	var parts []Part
	for s != "" {
		open := strings.IndexByte(s, '(')
		if open < 0 {
			return nil, false
		}
		end := balancedEnd(s[open:])
		if end < 0 {
			return nil, false
		}
		name, args, repaired, ok := pythonCall(s[:open+end])
		if !ok {
			return nil, false
		}
		pt := p.makeCall(name, args, raw, repaired)
		if mode == untagged && pt.Call.Err != nil {
			return nil, false
		}
		parts = append(parts, pt)
		s = strings.TrimLeft(s[open+end:], " \t\r\n,;")
	}
	return parts, len(parts) > 0
}

// nameAsKey reads {"get_weather": {...}}: an object whose only key is a
// known tool and whose value is an object.
func (p *Parser) nameAsKey(obj map[string]json.RawMessage) (*Call, bool) {
	if len(obj) != 1 {
		return nil, false
	}
	for k, v := range obj {
		resolved, ok := p.resolve(toolName(k))
		if !ok || len(v) == 0 || v[0] != '{' {
			return nil, false
		}
		return &Call{Name: resolved, Arguments: v}, true
	}
	return nil, false
}
