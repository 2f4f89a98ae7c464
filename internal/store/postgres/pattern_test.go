package postgres

import "testing"

func TestLikePattern(t *testing.T) {
	for _, tc := range []struct{ glob, want string }{
		{"files__*", `files\_\_%`},
		{"a?c", "a_c"},
		{"100%", `100\%`},
		{`back\slash`, `back\\slash`},
		{"*", "%"},
		{"", ""},
	} {
		if got := likePattern(tc.glob); got != tc.want {
			t.Errorf("likePattern(%q) = %q, want %q", tc.glob, got, tc.want)
		}
	}
}

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"(?, ?), (?, ?)", "($1, $2), ($3, $4)"},
	} {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
