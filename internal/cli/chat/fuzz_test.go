package chat

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestBlockEnd(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"open paragraph", "Hello wor", 0},
		{"finished line, no blank", "Hello\n", 0},
		{"one paragraph done", "Hello\n\nWor", len("Hello\n\n")},
		{"last of several", "a\n\nb\n\nc", len("a\n\nb\n\n")},
		{"blank line in a fence", "```go\nx\n\ny\n", 0},
		{"after a closed fence", "```\nx\n\ny\n```\n\nz", len("```\nx\n\ny\n```\n\n")},
		{"tilde fence", "~~~\n\n", 0},
		{"spaces only line", "a\n   \nb", len("a\n   \n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, blockEnd(tt.in)); diff != "" {
				t.Errorf("blockEnd(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzBlockEnd checks that the split point is a line start within the
// text, and that rendering by blocks never panics or loses text.
func FuzzBlockEnd(f *testing.F) {
	for _, s := range []string{"", "a\n\nb", "```\n\n```\n\nx", "- a\n- b\n\n1. c\n", "\n\n\n", "# T\n\n|a|b|\n|-|-|\n|1|2|\n\n"} {
		f.Add(s)
	}
	var md markdown
	md.set(60, true)
	f.Fuzz(func(t *testing.T, s string) {
		end := blockEnd(s)
		if end < 0 || end > len(s) || end > 0 && s[end-1] != '\n' {
			t.Fatalf("blockEnd(%q) = %d, not a line start within the text", s, end)
		}
		e := &entry{kind: entryAnswer, text: s}
		md.renderStreaming(e)
		if e.stableLen != end {
			t.Fatalf("renderStreaming kept %d bytes as stable, want %d", e.stableLen, end)
		}
	})
}

func TestShortArgs(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, ``},
		{`{}`, ``},
		{`null`, ``},
		{"{ \"path\" :\n \"a.txt\" }", `{"path":"a.txt"}`},
		{`not json`, `not json`},
		{"line\none", `line one`},
		{`{"text":"` + strings.Repeat("x", 100) + `"}`, `{"text":"` + strings.Repeat("x", 50) + `…`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, shortArgs(json.RawMessage(tt.in), argsLimit)); diff != "" {
			t.Errorf("shortArgs(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzShortArgs checks that any arguments a model sends become one valid
// line within the limit.
func FuzzShortArgs(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\n}", "\x00\xff", `"` + strings.Repeat("é", 80) + `"`, `[1,2,3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := shortArgs(raw, argsLimit)
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") || utf8.RuneCountInString(got) > argsLimit {
			t.Fatalf("shortArgs(%q) = %q: not one valid line of at most %d runes", raw, got, argsLimit)
		}
	})
}

func TestParseInput(t *testing.T) {
	type result struct {
		Cmd command
		Arg string
	}
	tests := []struct {
		in   string
		want result
	}{
		{"hello", result{cmdNone, "hello"}},
		{"  hello  ", result{cmdNone, "hello"}},
		{"/tools", result{cmdTools, ""}},
		{"/TOOLS extra", result{cmdTools, ""}},
		{"/servers", result{cmdServers, ""}},
		{"/agents", result{cmdAgents, ""}},
		{"/new", result{cmdNew, ""}},
		{"/quit", result{cmdQuit, ""}},
		{"/exit", result{cmdQuit, ""}},
		{"/help", result{cmdHelp, ""}},
		{"//etc/hosts", result{cmdNone, "/etc/hosts"}},
		{"/etc/hosts", result{cmdUnknown, "etc/hosts"}},
		{"/", result{cmdUnknown, ""}},
	}
	for _, tt := range tests {
		c, arg := parseInput(tt.in)
		if diff := cmp.Diff(tt.want, result{c, arg}); diff != "" {
			t.Errorf("parseInput(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzParseInput checks that no input panics and that a message is never
// taken for a command.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{"/tools", "//x", "/", "hello", "/\x00", " /new "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, arg := parseInput(s)
		trimmed := strings.TrimSpace(s)
		if !strings.HasPrefix(trimmed, "/") && (c != cmdNone || arg != trimmed) {
			t.Fatalf("parseInput(%q) = %v, %q; want the message as it is", s, c, arg)
		}
	})
}
