package textcall

import "strings"

// jsonFenceLangs are the fence languages that may hold a call, and
// toolFenceLangs those that say so outright.
var (
	jsonFenceLangs = map[string]bool{
		"": true, "json": true, "json5": true, "jsonc": true,
		"tool_code": true, "tool_use": true, "tool_call": true,
	}
	toolFenceLangs = map[string]bool{"tool_code": true, "tool_use": true, "tool_call": true}
)

// maxFenceInfo bounds a fence's info string; longer is prose, not a fence.
const maxFenceInfo = 64

// fence handles backticks at the start of buf, outside a fence.
func (s *StreamParser) fence(buf string, final bool) (int, []Part, bool) {
	if !strings.HasPrefix(buf, "```") {
		if final {
			return len(buf), textPart(buf), false
		}
		return 0, nil, true
	}
	info, nl := buf[3:], strings.IndexByte(buf[3:], '\n')
	if nl >= 0 {
		info = info[:nl]
	}
	if strings.IndexByte(info, '`') >= 0 || len(info) > maxFenceInfo {
		return 3, textPart("```"), false // inline code or prose, not a fence
	}
	if nl < 0 {
		if final {
			return len(buf), textPart(buf), false
		}
		return 0, nil, true
	}
	bodyStart := 3 + nl + 1
	lang := strings.ToLower(strings.TrimSpace(info))
	if jsonFenceLangs[lang] {
		k := bodyStart
		for k < len(buf) && isSpace(buf[k]) {
			k++
		}
		if k == len(buf) {
			if final {
				return len(buf), textPart(buf), false
			}
			return 0, nil, true
		}
		// A tool_code fence may hold a call written as Python.
		if buf[k] == '{' || buf[k] == '[' || toolFenceLangs[lang] {
			return s.callFence(buf, bodyStart, final)
		}
	}
	s.inFence = true
	return bodyStart, textPart(buf[:bodyStart]), false
}

// callFence handles a fence that may hold calls (its body starts like JSON,
// or its language is tool_code): it is a call when the whole body is calls
// to known tools, and text otherwise.
func (s *StreamParser) callFence(buf string, bodyStart int, final bool) (int, []Part, bool) {
	ce, _ := findClose(buf[bodyStart:], findFence, startsJSON(buf[bodyStart:]))
	if ce < 0 && final {
		ce = strings.Index(buf[bodyStart:], "```")
	}
	if ce < 0 {
		if !final {
			s.w = waitForFence(bodyStart, len(buf))
			return 0, nil, true
		}
		body := strings.TrimRight(buf[bodyStart:], "`")
		if parts, ok := s.p.blockCalls(body, buf, untagged); ok {
			return len(buf), parts, false
		}
		return len(buf), textPart(buf), false
	}
	raw := buf[:bodyStart+ce+3]
	if parts, ok := s.p.blockCalls(buf[bodyStart:bodyStart+ce], raw, untagged); ok {
		return len(raw), parts, false
	}
	return len(raw), textPart(raw), false
}

// fenceClose handles backticks at the start of buf inside an opaque fence.
func (s *StreamParser) fenceClose(buf string, final bool) (int, []Part, bool) {
	if strings.HasPrefix(buf, "```") {
		s.inFence = false
		return 3, textPart("```"), false
	}
	if final {
		return len(buf), textPart(buf), false
	}
	return 0, nil, true
}
