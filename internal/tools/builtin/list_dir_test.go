package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListDir(t *testing.T) {
	e := newEnv(t, nil)
	write(t, filepath.Join(e.root, "b.txt"), "12345")
	write(t, filepath.Join(e.root, "a", "x.go"), strings.Repeat("x", 2048))
	write(t, filepath.Join(e.root, "a", "deep", "y.go"), "y")
	write(t, filepath.Join(e.root, ".git", "HEAD"), "ref")
	if err := os.Mkdir(filepath.Join(e.root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(e.root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"default", map[string]any{}, `[directory ".", depth 1: 5 entries]
.git/
a/
b.txt  (5 B)
empty/
link -> b.txt`},
		{"depth 3", map[string]any{"depth": 3}, `[directory ".", depth 3: 8 entries]
.git/  (not expanded)
a/
a/deep/
a/deep/y.go  (1 B)
a/x.go  (2 KiB)
b.txt  (5 B)
empty/
link -> b.txt`},
		{"subdirectory", map[string]any{"path": "a", "depth": 2}, `[directory "a", depth 2: 3 entries]
deep/
deep/y.go  (1 B)
x.go  (2 KiB)`},
		{"empty", map[string]any{"path": "empty"}, "[directory \"empty\", depth 1: 0 entries]\n(empty)"},
		{"absolute", map[string]any{"path": e.root + "/a/deep"}, "[directory \"a/deep\", depth 1: 1 entries]\ny.go  (1 B)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameListDir, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("list_dir mismatch (-want +got):\n%s", diff)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"file", map[string]any{"path": "b.txt"}, `"b.txt" is a regular file, not a directory; use read_file to read a file`},
		{"missing", map[string]any{"path": "nope"}, `listing "nope": no such file or directory`},
		{"depth too large", map[string]any{"depth": 6}, "depth 6 is out of range; use 1 to 5"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, nameListDir, tt.args, tt.want)
		})
	}
}

func TestListDirCap(t *testing.T) {
	e := newEnv(t, nil)
	for i := range listMaxEntries + 5 {
		write(t, filepath.Join(e.root, fmt.Sprintf("f%04d", i)), "")
	}
	got := e.ok(t, nameListDir, map[string]any{})
	lines := strings.Split(got, "\n")
	if len(lines) != listMaxEntries+2 || !strings.HasPrefix(lines[len(lines)-1], "[stopped at 1000 entries; more exist") {
		t.Errorf("got %d lines ending %q", len(lines), lines[len(lines)-1])
	}
}
