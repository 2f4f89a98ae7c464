package textcall

import (
	"encoding/json"
	"errors"
	"strings"
)

// account passes one decided part through the checks that apply to the
// reply as a whole: a call shown as an example or with placeholder values
// becomes text, and a call after prose waits until the reply shows whether
// that prose was reasoning (a lone </think> later).
func (s *StreamParser) account(out []Part, pt Part) []Part {
	if s.holding {
		s.held = append(s.held, pt)
		return out
	}
	if pt.Call == nil {
		if !pt.Reasoning {
			if strings.TrimSpace(pt.Text) != "" {
				s.seenText = true
				s.atStart = false
				s.maybeMeant = false
			}
			s.tail = keepTail(s.tail, pt.Text)
		}
		return append(out, pt)
	}
	if example := introducedAsExample(string(lastBytes(s.tail, exampleLen))); example || hasPlaceholder(pt.Call.Arguments) {
		s.shown++
		// A runnable call introduced as an example with real values may
		// still have been meant: the reply is ambiguous if it ends there.
		s.maybeMeant = example && pt.Call.Err == nil && !hasPlaceholder(pt.Call.Arguments)
		return s.showAs(out, pt.Call.Raw, false)
	}
	s.ran = true
	s.atStart = true
	// Prose before a call may be reasoning whose <think> the template
	// opened, whatever it says ("First idea:" has no word typical of
	// reasoning): the call is held until the reply shows which. Calls run
	// only once the reply has ended, so holding costs nothing but their
	// early display.
	if !s.thinkKnown && s.seenText {
		// This prose may be reasoning whose <think> the template opened:
		// hold the call, and what follows it to keep the order, until a
		// lone </think> or the end decides.
		s.holding = true
		s.held = append(s.held, pt)
		return out
	}
	s.thinkKnown = true
	return append(out, pt)
}

// showAs appends a call's source as text or reasoning, once per block.
func (s *StreamParser) showAs(out []Part, raw string, reasoning bool) []Part {
	if raw == s.lastShown {
		return out
	}
	s.lastShown = raw
	return append(out, Part{Text: raw, Reasoning: reasoning})
}

// Ambiguous reports, after Close, whether the reply ran no call and ended
// with a call introduced as an example but written with real values: the
// model may have meant it, so it is worth asking once.
func (s *StreamParser) Ambiguous() bool { return s.closed && !s.ran && s.maybeMeant }

// Shown reports how many calls in the reply were not run because they were
// only shown: introduced as an example, written with placeholder values,
// or inside reasoning.
func (s *StreamParser) Shown() int { return s.shown }

// tailLen is how much released text is kept, to look back for what
// introduced a call (an example cue).
const tailLen = 512

// exampleLen is how far back an example cue is looked for.
const exampleLen = 160

// keepTail appends text to tail, keeping at least its last tailLen bytes
// without copying on every call.
func keepTail(tail []byte, text string) []byte {
	if len(text) >= tailLen {
		return append(tail[:0], text[len(text)-tailLen:]...)
	}
	if len(tail)+len(text) > 2*tailLen {
		keep := tail[len(tail)-(tailLen-len(text)):]
		tail = append(tail[:0], keep...)
	}
	return append(tail, text...)
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// reasoning reads inside reasoning up to its closing marker. Nothing in it
// runs; a possible start of the marker is held back.
func (s *StreamParser) reasoning(buf string, final bool) (int, []Part, bool) {
	if i := strings.Index(buf, s.reason); i >= 0 {
		n := i + len(s.reason)
		s.reason = ""
		return n, reasonPart(buf[:i]), false
	}
	if final {
		return len(buf), reasonPart(buf), false
	}
	k := partialSuffix(buf, s.reason)
	if k == len(buf) {
		return 0, nil, true
	}
	return len(buf) - k, reasonPart(buf[:len(buf)-k]), k > 0
}

func reasonPart(s string) []Part {
	if s == "" {
		return nil
	}
	return []Part{{Text: s, Reasoning: true}}
}

// family handles a marker from the family table at the start of buf.
func (s *StreamParser) family(m *marker, buf string, final bool) (int, []Part, bool) {
	n := len(m.open)
	switch m.kind {
	case kindThinkOpen:
		s.reason = m.close
		s.thinkKnown = true
		held := s.held
		s.held, s.holding = nil, false
		return n, held, false
	case kindThinkClose:
		var out []Part
		for _, pt := range s.held {
			if pt.Call == nil {
				out = append(out, Part{Text: pt.Text, Reasoning: true})
				continue
			}
			s.shown++
			out = s.showAs(out, pt.Call.Raw, true)
		}
		s.held, s.holding = nil, false
		s.thinkKnown = true
		return n, out, false
	case kindDrop:
		return n, nil, false
	case kindPythonTag:
		return s.jsonAfter(buf, n, final)
	case kindHarmony:
		return s.harmony(buf, n, final)
	}
	return s.closedBlock(m, buf, final)
}

// closedBlock reads a block that ends with its family's closing marker. A block
// cut off by the end of the reply is a call only if it reads cleanly.
func (s *StreamParser) closedBlock(m *marker, buf string, final bool) (int, []Part, bool) {
	n := len(m.open)
	body := buf[n:]
	find := func(x string) (int, int) { return strings.Index(x, m.close), len(m.close) }
	ci, _ := findClose(body, find, startsJSON(body))
	if ci < 0 && final {
		ci = strings.Index(body, m.close)
	}
	content := func(end int) string {
		if m.keepOpen {
			return buf[:n+end]
		}
		return body[:end]
	}
	if ci < 0 {
		if !final {
			s.w = waitForMarker(m.close, n, len(buf))
			return 0, nil, true
		}
		parts := s.p.familyBody(m.body, content(len(body)-partialSuffix(body, m.close)), buf)
		if allRunnable(parts) {
			return len(buf), parts, false
		}
		return len(buf), textPart(buf), false
	}
	raw := buf[:n+ci+len(m.close)]
	parts := s.p.familyBody(m.body, content(ci), raw)
	if len(parts) == 0 {
		return len(raw), textPart(raw), false
	}
	return len(raw), parts, false
}

// familyBody reads the calls in a block's content with the family's reader.
func (p *Parser) familyBody(kind bodyKind, content, raw string) []Part {
	switch kind {
	case bodyDeepSeek:
		return p.deepseekCalls(content, raw)
	case bodyKimi:
		return p.kimiCalls(content, raw)
	case bodyGemma:
		return p.gemmaCalls(content, raw)
	}
	parts, _ := p.blockCalls(content, raw, tagged)
	return parts
}

// jsonAfter reads the JSON calls that follow a marker without a closer
// (<|python_tag|>). When no JSON follows, the marker is dropped.
func (s *StreamParser) jsonAfter(buf string, n int, final bool) (int, []Part, bool) {
	i := skipSpace(buf, n)
	if i == len(buf) {
		return atEnd(buf, final)
	}
	if isIdentStart(buf[i]) {
		return s.builtinCall(buf, i, final)
	}
	if buf[i] != '{' && buf[i] != '[' {
		return n, nil, false
	}
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

// toolName strips what servers and templates put around a tool name:
// "functions.get_weather:0" is get_weather.
func toolName(w string) string {
	w = strings.TrimSpace(w)
	w = strings.TrimPrefix(w, "functions.")
	if i := strings.LastIndexByte(w, ':'); i > 0 && allDigits(w[i+1:]) {
		w = w[:i]
	}
	return w
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// makeCall builds a call from a name as written and its arguments value.
func (p *Parser) makeCall(name string, args json.RawMessage, raw string, repaired bool) Part {
	name = toolName(name)
	c := &Call{Name: name, Arguments: args, Raw: raw, Repaired: repaired}
	if len(args) == 0 || string(args) == "null" {
		c.Arguments = json.RawMessage("{}")
	} else if args[0] != '{' {
		c.Name, c.Arguments = "", json.RawMessage("{}")
		c.Err = &MalformedCallError{Reason: "the arguments must be a JSON object"}
		return Part{Call: c}
	}
	if name == "" {
		c.Err = &MalformedCallError{Reason: "no tool name"}
		return Part{Call: c}
	}
	if resolved, ok := p.resolve(name); ok {
		c.Name = resolved
	} else {
		c.Err = &UnknownToolError{Name: name, Available: p.names}
	}
	return Part{Call: c}
}

// builtinCall reads Llama 3.1's built-in tool form after <|python_tag|>:
// brave_search.call(query="...").
func (s *StreamParser) builtinCall(buf string, i int, final bool) (int, []Part, bool) {
	k := i
	for k < len(buf) && k-i <= maxLead && (isIdentPart(buf[k]) || buf[k] == '.') {
		k++
	}
	if k-i > maxLead {
		return i, nil, false
	}
	if k == len(buf) {
		if final {
			return i, nil, false
		}
		return 0, nil, true
	}
	if buf[k] != '(' {
		return i, nil, false
	}
	end := balancedEnd(buf[k:])
	if end < 0 {
		if final || len(buf)-k > maxPyList {
			return i, nil, false
		}
		return 0, nil, true
	}
	name := strings.TrimSuffix(buf[i:k], ".call")
	_, args, repaired, ok := pythonCall("f" + buf[k:k+end])
	if !ok {
		return i, nil, false
	}
	raw := buf[:k+end]
	return len(raw), []Part{s.p.makeCall(name, args, raw, repaired)}, false
}
