package textcall

import (
	"errors"
	"strings"
)

// StreamParser finds tool calls in a reply that arrives in pieces. Text is
// released as soon as it cannot be the start of a call; only a possible
// start ("<tool_", "```", "{" and what follows it) is held back until it is
// decided. A call is released when its block is complete.
//
// Feeding a reply in any pieces and calling Close yields the same parts as
// [Parser.Parse] on the whole reply (adjacent text parts joined). The work
// is linear in the length of the reply however small the pieces: a block
// held back is not rescanned until new text may decide it.
//
// A StreamParser is not safe for concurrent use.
type StreamParser struct {
	p *Parser
	// buf is the text received but not yet released.
	buf []byte
	// inFence is set inside a code fence that cannot hold a call (```go,
	// or ``` followed by prose): braces there are code, not calls.
	inFence bool
	closed  bool
	// bareWork counts the bytes read by decided scans of bare JSON; past
	// maxBareWork a "{" no longer starts a call (see bare).
	bareWork int
	// w says what the block held at the start of buf is waiting for.
	w waiter
	// reason is the marker that ends the reasoning being read ("</think>"),
	// or "" outside reasoning.
	reason string
	// atStart is set at the start of the reply and right after a call,
	// where a bare tool name followed by its arguments is a call (Kimi
	// with its tokens stripped, Functionary v3.2's first call).
	atStart bool
	// seenText is set once text other than white space was released.
	seenText bool
	// thinkKnown is set once the reply showed whether it reasons (a think
	// marker) or released a call. Until then, calls after prose are held:
	// a later lone </think> makes them reasoning, not calls.
	thinkKnown bool
	held       []Part
	holding    bool
	// ran is set once a call was released to run; maybeMeant while the
	// last thing in the reply is a call shown as an example.
	ran        bool
	maybeMeant bool
	// tail is the end of the text released so far, to see whether a block
	// is introduced as an example.
	tail []byte
	// shown counts calls not run because they were only shown (an example,
	// a placeholder value, reasoning).
	shown int
	// lastShown is the Raw of the last call turned into text, so a block
	// of several calls is shown once.
	lastShown string
}

// NewStream returns a parser for one streamed reply.
func (p *Parser) NewStream() *StreamParser { return &StreamParser{p: p, atStart: true} }

// Feed adds the next piece of the reply and returns the parts that are now
// certain. It returns nil after Close.
func (s *StreamParser) Feed(delta string) []Part {
	if s.closed {
		return nil
	}
	s.buf = append(s.buf, delta...)
	if !s.w.mayDecide(s.buf) {
		return nil
	}
	return s.process(false)
}

// Close ends the reply and returns what was held back: an unterminated
// block becomes text, or a call when the block reads unambiguously as one.
// Close is idempotent.
func (s *StreamParser) Close() []Part {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.process(true)
}

// Pending reports how many bytes are held back, undecided.
func (s *StreamParser) Pending() int { return len(s.buf) }

// process releases everything in buf that can be decided. final means no
// more text will come.
func (s *StreamParser) process(final bool) []Part {
	s.w = waiter{}
	rest, out := s.run(string(s.buf), final)
	s.buf = append(s.buf[:0], rest...)
	return out
}

// run decides as much of buf as it can and returns the rest.
func (s *StreamParser) run(buf string, final bool) (string, []Part) {
	var out []Part
	for len(buf) > 0 {
		n, parts, more := s.step(buf, final)
		for _, pt := range parts {
			out = s.account(out, pt)
		}
		buf = buf[n:]
		if more {
			break
		}
	}
	if final {
		buf = ""
		out = append(out, s.held...)
		s.held, s.holding = nil, false
	}
	return buf, appendParts(nil, out...)
}

// step decides a prefix of buf. It returns how many bytes it consumed, the
// parts they produced, and whether it needs more text to go on.
func (s *StreamParser) step(buf string, final bool) (int, []Part, bool) {
	if s.reason != "" {
		return s.reasoning(buf, final)
	}
	if s.atStart && isSpace(buf[0]) {
		// White space keeps the start: "\n\nget_weather(...)" counts.
		k := 1
		for k < len(buf) && isSpace(buf[k]) {
			k++
		}
		return k, textPart(buf[:k]), false
	}
	if s.atStart && isIdentStart(buf[0]) {
		n, parts, more := s.identCall(buf, final)
		if n > 0 || more {
			return n, parts, more
		}
		s.atStart = false
	}
	return s.step0(buf, final)
}

// step0 is step outside reasoning and away from a bare name.
func (s *StreamParser) step0(buf string, final bool) (int, []Part, bool) {
	j := nextTrigger(buf, s.inFence || s.bareWork > maxBareWork)
	switch {
	case j < 0:
		return len(buf), textPart(buf), false
	case j > 0:
		return j, textPart(buf[:j]), false
	}
	switch buf[0] {
	case '<':
		return s.tag(buf, final)
	case '`':
		if s.inFence {
			return s.fenceClose(buf, final)
		}
		if !strings.HasPrefix(buf, "``") {
			return s.inlineCode(buf, final)
		}
		return s.fence(buf, final)
	case '[':
		return s.bracket(buf, final)
	case '>':
		return s.arrows(buf, final)
	case 'f':
		return s.kimiStripped(buf, final)
	default: // '{'
		return s.bare(buf, final)
	}
}

// nextTrigger returns the index of the first byte that may start a call,
// or -1. With noBrace (inside an opaque fence) only tags and fences count.
func nextTrigger(buf string, noBrace bool) int {
	for i := 0; i < len(buf); i++ {
		switch buf[i] {
		case '<':
			return i
		case '[':
			if !noBrace {
				return i
			}
		case 'f':
			if rest := buf[i:]; !noBrace && (strings.HasPrefix(rest, kimiPrefix) || len(rest) < len(kimiPrefix) && strings.HasPrefix(kimiPrefix, rest)) {
				return i
			}
		case '>':
			if !noBrace {
				return i
			}
		case '{':
			if !noBrace {
				return i
			}
		case '`':
			rest := buf[i:]
			if strings.HasPrefix(rest, "```") || rest == "`" || rest == "``" || !noBrace && !strings.HasPrefix(rest, "``") {
				return i
			}
		}
	}
	return -1
}

var (
	openTags  = [...]string{"<tool_code>", "<tool_use>", "<tool_call>"}
	closeTags = [...]string{"</tool_code>", "</tool_use>", "</tool_call>"}
)

// tag handles a '<' at the start of buf.
func (s *StreamParser) tag(buf string, final bool) (int, []Part, bool) {
	n, partial := matchTag(buf, openTags[:])
	if n == 0 {
		m, mpartial := matchMarker(buf)
		if m != nil {
			return s.family(m, buf, final)
		}
		if (partial || mpartial) && !final {
			return 0, nil, true
		}
		return 1, textPart("<"), false
	}
	body := buf[n:]
	ci, cl := findClose(body, findCloseTag, startsJSON(body))
	if ci < 0 && final {
		// No closing tag outside a string: take one inside a string
		// rather than none (an unbalanced quote in a broken block).
		ci, cl = findTag(body, closeTags[:])
	}
	if ci < 0 {
		if !final {
			s.w = waitForTag(n, len(buf))
			return 0, nil, true
		}
		// Unterminated at the end of the reply: a call only if it reads
		// cleanly as one.
		parts, _ := s.p.blockCalls(trimPartialTag(body), buf, tagged)
		if allRunnable(parts) {
			return len(buf), parts, false
		}
		return len(buf), textPart(buf), false
	}
	raw := buf[:n+ci+cl]
	parts, _ := s.p.blockCalls(body[:ci], raw, tagged)
	return len(raw), parts, false
}

// matchTag reports the length of the tag from tags that buf starts with,
// ignoring ASCII case, or 0 and whether buf is a proper prefix of one.
func matchTag(buf string, tags []string) (n int, partial bool) {
	for _, t := range tags {
		if len(buf) >= len(t) {
			if strings.EqualFold(buf[:len(t)], t) {
				return len(t), false
			}
		} else if strings.EqualFold(buf, t[:len(buf)]) {
			partial = true
		}
	}
	return 0, partial
}

// findTag returns the index and length of the first complete tag from tags
// in s, or -1.
func findTag(s string, tags []string) (int, int) {
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return -1, 0
		}
		i += k
		if n, _ := matchTag(s[i:], tags); n > 0 {
			return i, n
		}
		i++
	}
	return -1, 0
}

// findClose returns the index and length of the first terminator that find
// locates in body, skipping, when body is JSON, those inside double-quoted
// strings: a call writing a file may well contain "</tool_code>" or "```"
// in its arguments. It returns -1 when there is none yet.
func findClose(body string, find func(string) (int, int), json bool) (int, int) {
	inStr, esc := false, false
	scanned := 0
	for off := 0; off < len(body); {
		i, l := find(body[off:])
		if i < 0 {
			return -1, 0
		}
		pos := off + i
		if !json {
			return pos, l
		}
		for ; scanned < pos; scanned++ {
			switch c := body[scanned]; {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			}
		}
		if !inStr {
			return pos, l
		}
		off = pos + 1
	}
	return -1, 0
}

func findCloseTag(s string) (int, int) { return findTag(s, closeTags[:]) }

func findFence(s string) (int, int) { return strings.Index(s, "```"), 3 }

// startsJSON reports whether a block's content starts like JSON, possibly
// after a fence line ("```json").
func startsJSON(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		s = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789 \t\r\n")
	}
	return s != "" && (s[0] == '{' || s[0] == '[')
}

// trimPartialTag drops a closing tag cut off by the end of the reply.
func trimPartialTag(s string) string {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if _, partial := matchTag(s[i:], closeTags[:]); partial {
			return s[:i]
		}
	}
	return s
}

// maxBareWork bounds the reading of bare JSON in one reply. Text with many
// unbalanced braces ("{{{{..." or "{"a":[" repeated) would otherwise be
// read to its end once per brace. The count only includes scans that
// decided something, whose length depends on the text alone, so streaming
// and one-shot parsing stop looking at the same brace.
const maxBareWork = 1 << 20

// bare handles a '{' at the start of buf: a JSON object that is exactly a
// call to a known tool is a call; any other complete object is text, and
// its inner braces are not looked at again.
func (s *StreamParser) bare(buf string, final bool) (int, []Part, bool) {
	out, n, repaired, err := repairValue(buf, final)
	if errors.Is(err, errIncomplete) {
		s.w = waitForObject(buf)
		return 0, nil, true
	}
	s.bareWork += n
	if err != nil {
		return 1, textPart("{"), false
	}
	c, err := s.p.callFromValue(out, untagged)
	if err != nil || c.Err != nil {
		return n, textPart(buf[:n]), false
	}
	c.Raw = buf[:n]
	c.Repaired = c.Repaired || repaired
	return n, []Part{{Call: c}}, false
}

func textPart(s string) []Part {
	if s == "" {
		return nil
	}
	return []Part{{Text: s}}
}

// appendParts appends parts to dst, joining adjacent text of the same kind
// and dropping empty text. Each run of text is built once, so many small
// pieces cost linear time.
func appendParts(dst []Part, parts ...Part) []Part {
	if len(dst) == 0 && len(parts) == 1 && (parts[0].Call != nil || parts[0].Text != "") {
		return parts
	}
	var run strings.Builder
	runReason := false
	flush := func() {
		if run.Len() > 0 {
			dst = append(dst, Part{Text: run.String(), Reasoning: runReason})
			run.Reset()
		}
	}
	if k := len(dst) - 1; k >= 0 && dst[k].Call == nil && len(parts) > 0 && parts[0].Call == nil && parts[0].Reasoning == dst[k].Reasoning {
		run.WriteString(dst[k].Text)
		runReason = dst[k].Reasoning
		dst = dst[:k]
	}
	for _, pt := range parts {
		if pt.Call == nil {
			if pt.Text == "" {
				continue
			}
			if pt.Reasoning != runReason {
				flush()
				runReason = pt.Reasoning
			}
			run.WriteString(pt.Text)
			continue
		}
		flush()
		dst = append(dst, pt)
	}
	flush()
	return dst
}
