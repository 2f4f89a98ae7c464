package textcall

import (
	"encoding/json"
	"strings"
)

// exampleCues are words that introduce something shown, not done.
var exampleCues = [...]string{
	"for example", "for instance", "such as", "e.g.", "eg:", "example:", "example call",
	"like this:", "looks like", "would look like", "the format", "this format", "format:", "syntax",
	"you can write", "you would write", "an example", "to call a tool", "reply with",
	"respond with", "would call", "how to call", "you can call", "you could call",
	"following format", "looks:", "here's how", "here is how", "how to",
}

// introducedAsExample reports whether the text just before a call, in the
// same sentence or the one ending in ":", says the call is an example.
func introducedAsExample(tail string) bool {
	if i := strings.LastIndex(tail, "\n\n"); i >= 0 {
		tail = tail[i+2:]
	}
	low := strings.ToLower(tail)
	for _, end := range [...]string{". ", "! ", "? ", ".\n", "!\n", "?\n"} {
		if i := strings.LastIndex(strings.ReplaceAll(low, "e.g.", "e_g_"), end); i >= 0 {
			low = low[i+len(end):]
		}
	}
	for _, c := range exampleCues {
		if strings.Contains(low, c) {
			return true
		}
	}
	return false
}

// hasPlaceholder reports whether the arguments hold a placeholder such as
// "<city>" or "...": a call written to show the format.
func hasPlaceholder(args json.RawMessage) bool {
	if len(args) < 4 || !strings.ContainsAny(string(args), "<.…p") {
		return false
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return false
	}
	if m, ok := v.(map[string]any); ok && m["type"] == "object" {
		if _, ok := m["properties"]; ok {
			return true // a parameter schema echoed back, not arguments
		}
	}
	return placeholderIn(v, 0)
}

func placeholderIn(v any, depth int) bool {
	if depth > 20 {
		return false
	}
	switch x := v.(type) {
	case string:
		t := strings.TrimSpace(x)
		if t == "..." || t == "…" {
			return true
		}
		return len(t) > 2 && len(t) <= 48 && t[0] == '<' && t[len(t)-1] == '>' &&
			!strings.ContainsAny(t[1:len(t)-1], "<>/=\n\"")
	case map[string]any:
		for _, e := range x {
			if placeholderIn(e, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if placeholderIn(e, depth+1) {
				return true
			}
		}
	}
	return false
}
