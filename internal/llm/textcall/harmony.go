package textcall

import (
	"errors"
	"strings"
)

// maxHarmonyHeader bounds a harmony header; longer is not one.
const maxHarmonyHeader = 512

// harmony reads a gpt-oss header, from <|start|> or <|channel|> to
// <|message|>: "assistant<|channel|>commentary to=functions.x
// <|constrain|>json<|message|>{...}<|call|>". A message addressed to a
// function is a call; the analysis channel is reasoning; final and
// commentary without a recipient are the answer.
func (s *StreamParser) harmony(buf string, n int, final bool) (int, []Part, bool) {
	const msg = "<|message|>"
	hi := strings.Index(buf[n:min(len(buf), n+maxHarmonyHeader+len(msg))], msg)
	if hi < 0 || hi > maxHarmonyHeader {
		if final || len(buf)-n >= maxHarmonyHeader+len(msg) {
			return n, nil, false
		}
		s.w = waitForMarker(msg, n, len(buf))
		return 0, nil, true
	}
	header := buf[:n+hi]
	start := n + hi + len(msg)
	header = strings.NewReplacer("<|start|>", " ", "<|channel|>", " <|channel|> ", "<|constrain|>", " <|constrain|> ").Replace(header)
	var recipient, channel string
	fields := strings.Fields(header)
	for i, f := range fields {
		switch {
		case strings.HasPrefix(f, "to="):
			recipient = f[3:]
		case f == "<|channel|>" && i+1 < len(fields):
			channel = fields[i+1]
		}
	}
	if recipient == "" {
		// The header may have begun before the marker, as text:
		// " to=functions.x<|channel|>commentary" after the template's
		// "<|start|>assistant".
		if f := strings.Fields(string(lastBytes(s.tail, maxHarmonyHeader))); len(f) > 0 && strings.HasPrefix(f[len(f)-1], "to=") {
			recipient = f[len(f)-1][3:]
		}
	}
	if recipient != "" {
		i := skipSpace(buf, start)
		if i == len(buf) {
			return atEnd(buf, final)
		}
		val, used, repaired, err := repairValue(buf[i:], final)
		if errors.Is(err, errIncomplete) {
			return 0, nil, true
		}
		if err != nil {
			return start, nil, false
		}
		raw := buf[:i+used]
		return len(raw), []Part{s.p.makeCall(recipient, val, raw, repaired)}, false
	}
	if channel == "analysis" {
		s.reason = "<|end|>"
		s.thinkKnown = true
	}
	return start, nil, false
}
