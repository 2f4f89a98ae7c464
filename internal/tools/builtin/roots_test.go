package builtin

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	rs := &roots{list: []root{{dir: "/srv/a", real: "/data/a"}, {dir: "/srv/b", real: "/srv/b"}}}
	tests := []struct {
		path, rel string
		rootIdx   int
		err       string
	}{
		{"x.go", "x.go", 0, ""},
		{"./d/../x.go", "x.go", 0, ""},
		{".", ".", 0, ""},
		{"/srv/a", ".", 0, ""},
		{"/srv/a/d/x", "d/x", 0, ""},
		{"/data/a/d/x", "d/x", 0, ""},
		{"/srv/b/y", "y", 1, ""},
		{"/srv/b/../a/z", "z", 0, ""},
		{"/srv/ab/x", "", 0, `path "/srv/ab/x" is outside the allowed roots (/srv/a, /srv/b); use a path inside one of them`},
		{"/srv/a/../c", "", 0, "is outside the allowed roots"},
		{"../a/x", "", 0, "is outside the allowed roots"},
		{"d/../../x", "", 0, "is outside the allowed roots"},
		{"..", "", 0, "is outside the allowed roots"},
		{"..foo", "..foo", 0, ""},
		{"", "", 0, "path is empty; give a path relative to /srv/a"},
		{"a\x00b", "", 0, "contains a NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			l, err := rs.resolve(tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("resolve(%q) error = %v, want %q", tt.path, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve(%q): %v", tt.path, err)
			}
			if l.rel != tt.rel || l.root != &rs.list[tt.rootIdx] {
				t.Errorf("resolve(%q) = %q in %s, want %q in %s", tt.path, l.rel, l.root.dir, tt.rel, rs.list[tt.rootIdx].dir)
			}
		})
	}
}

// FuzzResolve checks that every accepted path maps to a clean path below
// a root: never absolute, never climbing with "..".
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"x", "../x", "/srv/a/x", "/srv/a/../../etc", "a/./b//c/", "..", "...", "/", "\x00", "/srv/b"} {
		f.Add(s)
	}
	rs := &roots{list: []root{{dir: "/srv/a", real: "/srv/a"}, {dir: "/srv/b", real: "/real/b"}}}
	f.Fuzz(func(t *testing.T, p string) {
		l, err := rs.resolve(p)
		if err != nil {
			return
		}
		if filepath.IsAbs(l.rel) || l.rel == ".." || strings.HasPrefix(l.rel, "../") || l.rel != filepath.Clean(l.rel) {
			t.Fatalf("resolve(%q) = %q, which is not a clean path inside the root", p, l.rel)
		}
		if full := filepath.Join(l.root.dir, l.rel); full != l.root.dir && !strings.HasPrefix(full, l.root.dir+"/") {
			t.Fatalf("resolve(%q) leads to %q, outside %q", p, full, l.root.dir)
		}
	})
}
