package textcall

import (
	"strings"
	"testing"
	"time"
)

// TestHostileFamilies checks that text repeating the start of a family's
// call without ever finishing one is parsed in linear time, whole and
// streamed.
func TestHostileFamilies(t *testing.T) {
	p := NewParser([]string{"get_weather", "search"})
	for _, unit := range []string{
		`[TOOL_CALLS]{"a":[`, `<|python_tag|>{"a":[`, `>>>get_weather` + "\n" + `{"a":[`, `functions.get_weather:0{"a":[`,
		`<|channel|>commentary to=functions.search<|message|>{"a":[`, `[search(q=[`, `<|tool_call>call:search{q:[`,
		`<tool_call><function=search><parameter=q>`, "`x", `<think>`, `</think>`, `[THINK]`, `<|start|>`,
	} {
		in := strings.Repeat(unit, 200_000/len(unit))
		start := time.Now()
		p.Parse(in)
		s := p.NewStream()
		for i := 0; i < len(in); i += 64 {
			s.Feed(in[i:min(i+64, len(in))])
		}
		s.Close()
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q repeated to 200 KB took %v", unit, d)
		}
	}
}

// TestLongLeadsStreamLikeWhole checks the bounds on what ordinary text may
// hold back: a lead longer than the bound is decided the same way whole
// and streamed at every split.
func TestLongLeadsStreamLikeWhole(t *testing.T) {
	p := NewParser([]string{"get_weather", strings.Repeat("g", 140)})
	long := strings.Repeat("g", 140)
	for _, in := range []string{
		">>>" + long + "\n{\"a\": 1}",
		">>>" + strings.Repeat(" ", 130) + "get_weather\n{\"a\": 1}",
		"[" + strings.Repeat(" ", 130) + "get_weather(a=1)]",
		"[" + long + "(a=1)]",
		long + "{\"a\": 1}",
		"<|python_tag|>" + long + ".call(a=1)",
		"<|channel|>" + strings.Repeat("x", 505) + " to=functions.get_weather<|message|>{\"a\": 1}",
		"<|channel|>" + strings.Repeat("x", 515) + "<|message|>{\"a\": 1}",
		"`" + strings.Repeat("x", 4100) + "`",
	} {
		want := view(p.Parse(in))
		for i := 0; i <= len(in); i += 1 + i/64 {
			if got := view(feedSplit(p, in, i)); !equalViews(want, got) {
				t.Fatalf("%.40q... split at %d: whole %v, streamed %v", in, i, want, got)
			}
		}
	}
}

func equalViews(a, b []got) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
