package textcall

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// feedSplit feeds in at the given cut points and closes the stream.
func feedSplit(p *Parser, in string, cuts ...int) []Part {
	s := p.NewStream()
	var parts []Part
	prev := 0
	for _, c := range cuts {
		parts = appendParts(parts, s.Feed(in[prev:c])...)
		prev = c
	}
	parts = appendParts(parts, s.Feed(in[prev:])...)
	return appendParts(parts, s.Close()...)
}

// TestStreamEverySplit feeds every table input split in two at every byte,
// and byte by byte, and compares with the one-shot parse.
func TestStreamEverySplit(t *testing.T) {
	p := NewParser(testNames)
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			want := view(p.Parse(tc.in))
			for i := 0; i <= len(tc.in); i++ {
				if diff := cmp.Diff(want, view(feedSplit(p, tc.in, i))); diff != "" {
					t.Fatalf("split at %d of %q: mismatch (-want +got):\n%s", i, tc.in, diff)
				}
			}
			var cuts []int
			for i := 1; i < len(tc.in); i++ {
				cuts = append(cuts, i)
			}
			if diff := cmp.Diff(want, view(feedSplit(p, tc.in, cuts...))); diff != "" {
				t.Fatalf("byte by byte %q: mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestStreamReleasesTextEarly checks that text before a call reaches the
// user before the call is complete, and that only a possible start of a
// call is held back.
func TestStreamReleasesTextEarly(t *testing.T) {
	p := NewParser(testNames)
	tests := []struct {
		name string
		feed string
		want []got // what the first Feed returns
		held int   // bytes still pending
	}{
		{"plain text goes at once", "Hello there", []got{txt("Hello there")}, 0},
		{"text before a tag", "Let me check. <tool_code>{\"tool_name\":", []got{txt("Let me check. ")}, 24},
		{"possible tag start held", "Let me check <tool_", []got{txt("Let me check ")}, 6},
		{"lone angle bracket held", "a <", []got{txt("a ")}, 1},
		{"not a tag", "a <b> c", []got{txt("a <b> c")}, 0},
		{"possible fence held", "see ``", []got{txt("see ")}, 2},
		{"opaque fence streams", "```go\nfunc main() {", []got{txt("```go\nfunc main() {")}, 0},
		{"json fence held", "```json\n{\"name\"", nil, 15},
		{"brace held", "x = {\"a\"", []got{txt("x = ")}, 4},
		{"brace in prose released", "x = {a b", []got{txt("x = {a b")}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := p.NewStream()
			if diff := cmp.Diff(tc.want, view(s.Feed(tc.feed))); diff != "" {
				t.Errorf("Feed(%q) mismatch (-want +got):\n%s", tc.feed, diff)
			}
			if s.Pending() != tc.held {
				t.Errorf("Pending() = %d, want %d", s.Pending(), tc.held)
			}
		})
	}
}

func TestStreamCallReleasedWhenComplete(t *testing.T) {
	p := NewParser(testNames)
	s := p.NewStream()
	if got := s.Feed(`<tool_code>{"tool_name":"search","arguments":{}}`); len(got) != 0 {
		t.Fatalf("call released before its closing tag: %+v", got)
	}
	want := []got{call("search", `{}`)}
	if diff := cmp.Diff(want, view(s.Feed("</tool_code>"))); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got := s.Close(); len(got) != 0 {
		t.Errorf("Close() = %+v, want nothing", got)
	}
	if got := s.Feed("more"); got != nil {
		t.Errorf("Feed after Close = %+v, want nil", got)
	}
}

// fuzzNames is the catalogue for the fuzz tests.
var fuzzNames = []string{"search", "read_file", "a__b"}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	p := NewParser(fuzzNames)
	f.Fuzz(func(t *testing.T, in string) {
		parts := p.Parse(in)
		var text strings.Builder
		for i, pt := range parts {
			if pt.Call == nil {
				if pt.Text == "" {
					t.Fatalf("empty text part %d", i)
				}
				if i > 0 && parts[i-1].Call == nil {
					t.Fatalf("adjacent text parts at %d", i)
				}
				text.WriteString(pt.Text)
				continue
			}
			if pt.Call.Err == nil && !utf8.Valid(pt.Call.Arguments) {
				t.Fatalf("arguments are not valid UTF-8: %q", pt.Call.Arguments)
			}
			if len(pt.Call.Arguments) == 0 || pt.Call.Arguments[0] != '{' {
				t.Fatalf("arguments %q are not an object", pt.Call.Arguments)
			}
			if !strings.Contains(in, pt.Call.Raw) {
				t.Fatalf("raw %q is not from the input", pt.Call.Raw)
			}
		}
		// Without calls, the text is the input, unchanged.
		if !hasCall(parts) && text.String() != in {
			t.Fatalf("text %q differs from input %q", text.String(), in)
		}
	})
}

func FuzzStream(f *testing.F) {
	for i, tc := range parseCases {
		f.Add(tc.in, uint16(i*7), uint16(i*13))
	}
	p := NewParser(fuzzNames)
	f.Fuzz(func(t *testing.T, in string, a, b uint16) {
		want := view(p.Parse(in))
		var cuts []int
		if len(in) > 0 {
			x, y := int(a)%(len(in)+1), int(b)%(len(in)+1)
			cuts = []int{min(x, y), max(x, y)}
		}
		if diff := cmp.Diff(want, view(feedSplit(p, in, cuts...))); diff != "" {
			t.Fatalf("split %v of %q: mismatch (-want +got):\n%s", cuts, in, diff)
		}
		// Small pieces of a fixed size, as a model streams tokens.
		size := 1 + int(a)%13
		cuts = cuts[:0]
		for c := size; c < len(in); c += size {
			cuts = append(cuts, c)
		}
		if diff := cmp.Diff(want, view(feedSplit(p, in, cuts...))); diff != "" {
			t.Fatalf("pieces of %d bytes of %q: mismatch (-want +got):\n%s", size, in, diff)
		}
	})
}

func hasCall(parts []Part) bool {
	for _, p := range parts {
		if p.Call != nil {
			return true
		}
	}
	return false
}

// BenchmarkStreamLongCall streams a 20 KB call in 8-byte deltas, the shape
// of a model writing a file through a tool: the parser holds the block back
// and must not rescan it from the start on every delta.
func BenchmarkStreamLongCall(b *testing.B) {
	for _, form := range []struct{ name, open, close string }{
		{"tag", `<tool_code>{"tool_name": "files__write_file", "arguments": {"text": "`, `"}}</tool_code>`},
		{"fence", "```json\n{\"name\": \"files__write_file\", \"arguments\": {\"text\": \"", "\"}}\n```"},
		{"bare", `{"name": "files__write_file", "arguments": {"text": "`, `"}}`},
	} {
		b.Run(form.name, func(b *testing.B) {
			in := "Writing it now.\n" + form.open + strings.Repeat(`line of text\n`, 1500) + form.close
			p := NewParser(testNames)
			b.SetBytes(int64(len(in)))
			defer cpuPerOp(b)()
			for b.Loop() {
				s := p.NewStream()
				calls := 0
				for i := 0; i < len(in); i += 8 {
					for _, pt := range s.Feed(in[i:min(i+8, len(in))]) {
						if pt.Call != nil {
							calls++
						}
					}
				}
				s.Close()
				if calls != 1 {
					b.Fatalf("%d calls, want 1", calls)
				}
			}
		})
	}
}

// TestHostileBraces checks that text with thousands of unbalanced braces is
// parsed in bounded time, the same way streamed and whole.
func TestHostileBraces(t *testing.T) {
	p := NewParser(testNames)
	for _, unit := range []string{`{"a":[`, "{", `{'x`, "{\"k\": {\"k\": "} {
		in := strings.Repeat(unit, 60_000/len(unit)) + `<tool_code>{"tool_name":"search","arguments":{}}</tool_code>`
		start := time.Now()
		got := view(p.Parse(in))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q repeated: Parse took %v", unit, d)
		}
		if len(got) != 2 || got[1].Name != "search" {
			t.Errorf("%q repeated: parts %+v, want text then the call", unit, got[len(got)-1:])
		}
		var cuts []int
		for c := 1000; c < len(in); c += 1000 {
			cuts = append(cuts, c)
		}
		if diff := cmp.Diff(got, view(feedSplit(p, in, cuts...))); diff != "" {
			t.Errorf("%q repeated: streamed mismatch (-want +got):\n%s", unit, diff)
		}
	}
}
