package mcphost

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineRing(t *testing.T) {
	tests := []struct {
		name   string
		n, max int
		writes []string
		want   []string
	}{
		{"empty", 3, 10, nil, nil},
		{"lines across writes", 3, 10, []string{"a\nb", "c\n", "d"}, []string{"a", "bc", "d"}},
		{"keeps the last n", 2, 10, []string{"1\n2\n3\n4\n"}, []string{"3", "4"}},
		{"cuts long lines", 3, 4, []string{"abcdefgh\nxy\n"}, []string{"abcd", "xy"}},
		{"long line over several writes", 3, 4, []string{"abc", "def", "ghi\n", "z\n"}, []string{"abcd", "z"}},
		{"crlf", 3, 10, []string{"a\r\nb\r\n"}, []string{"a", "b"}},
		{"blank lines kept", 3, 10, []string{"\n\nx\n"}, []string{"", "", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newLineRing(tt.n, tt.max)
			for _, w := range tt.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if diff := cmp.Diff(tt.want, r.Lines()); diff != "" {
				t.Errorf("lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzLineRing checks the ring's bounds on arbitrary output split at an
// arbitrary point: never more than n lines, none longer than max, and
// short lines come back intact.
func FuzzLineRing(f *testing.F) {
	f.Add("hello\nworld\n", 3)
	f.Add(strings.Repeat("x", 5000)+"\nend", 100)
	f.Add("\r\n\n\r", 1)
	f.Fuzz(func(t *testing.T, s string, split int) {
		const n, max = 4, 16
		r := newLineRing(n, max)
		if split < 0 || split > len(s) {
			split = len(s) / 2
		}
		r.Write([]byte(s[:split]))
		r.Write([]byte(s[split:]))
		got := r.Lines()
		if len(got) > n+1 { // n complete lines plus an unfinished one
			t.Fatalf("%d lines kept, want at most %d", len(got), n+1)
		}
		for _, l := range got {
			if len(l) > max {
				t.Fatalf("line of %d bytes kept, max %d", len(l), max)
			}
		}
		lines := strings.Split(s, "\n")
		if last := lines[len(lines)-1]; last == "" || strings.HasSuffix(s, "\n") {
			lines = lines[:len(lines)-1]
		}
		if len(lines) == 0 || len(got) == 0 {
			return
		}
		want := strings.TrimRight(lines[len(lines)-1], "\r")
		if !strings.HasSuffix(s, "\n") {
			want = lines[len(lines)-1]
		}
		if len(want) <= max && got[len(got)-1] != want {
			t.Fatalf("last line %q, want %q", got[len(got)-1], want)
		}
	})
}
