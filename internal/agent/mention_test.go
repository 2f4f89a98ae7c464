package agent_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
)

func TestScanMentions(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"@bob check my emails", []string{"bob"}},
		{"please @bob, and @alice-2 too", []string{"bob", "alice-2"}},
		{"mail test@example.com now", nil},
		{"write to @example.com", nil},
		{"thanks @bob.", []string{"bob"}},
		{"@bob.\nnext", []string{"bob"}},
		{"(@bob)", []string{"bob"}},
		{"@@bob", []string{"bob"}},
		{"x_@bob", nil},
		{"é@bob", nil},
		{"«@bob»", []string{"bob"}},
		{"@bobé", nil},
		{"@ bob", nil},
		{"@", nil},
		{"", nil},
		{"@under_score @9lives", []string{"under_score", "9lives"}},
		{"@bob.@alice", []string{"bob", "alice"}},
	}
	for _, tc := range tests {
		var got []string
		for _, m := range agent.ScanMentions(tc.in) {
			got = append(got, m.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ScanMentions(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

func FuzzScanMentions(f *testing.F) {
	for _, s := range []string{"@bob hi", "test@example.com", "@a.b", "@bob.", "é@x", "@@@", "\xff@bob", "@bob\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prevEnd := 0
		for _, m := range agent.ScanMentions(s) {
			if m.Start < prevEnd || m.End <= m.Start+1 || m.End > len(s) || s[m.Start] != '@' || s[m.Start+1:m.End] != m.Name {
				t.Fatalf("bad mention %+v in %q", m, s)
			}
			prevEnd = m.End
			if strings.IndexFunc(m.Name, func(r rune) bool {
				return r >= utf8.RuneSelf || !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
			}) >= 0 {
				t.Fatalf("mention %q has a character outside [A-Za-z0-9_-]", m.Name)
			}
			if m.Start > 0 {
				r, _ := utf8.DecodeLastRuneInString(s[:m.Start])
				if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					t.Fatalf("mention %+v in %q follows a word character", m, s)
				}
			}
		}
	})
}
