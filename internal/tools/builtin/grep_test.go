package builtin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrep(t *testing.T) {
	second := t.TempDir()
	e := newEnv(t, nil, second)
	write(t, filepath.Join(e.root, "main.go"), "package main\n\nfunc main() {\n\tTODO()\n}\n")
	write(t, filepath.Join(e.root, "sub", "a_test.go"), "package sub\n// todo: more\n")
	write(t, filepath.Join(e.root, "sub", "notes.md"), "TODO later\r\n")
	write(t, filepath.Join(e.root, ".git", "config"), "TODO in git\n")
	write(t, filepath.Join(e.root, "bin.dat"), "TODO\x00binary")
	write(t, filepath.Join(e.root, "long.txt"), "TODO"+strings.Repeat("é", 400)+"\n")
	write(t, filepath.Join(second, "other.go"), "// TODO elsewhere\n")
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"all roots", map[string]any{"pattern": "TODO"}, "long.txt:1:TODO" + strings.Repeat("é", 148) + "…\n" +
			"main.go:4:\tTODO()\nsub/notes.md:1:TODO later\n" + second + "/other.go:1:// TODO elsewhere"},
		{"ignore case and glob", map[string]any{"pattern": "todo", "ignore_case": true, "glob": "*_test.go"}, "sub/a_test.go:2:// todo: more"},
		{"glob with a slash", map[string]any{"pattern": "package", "glob": "sub/*.go"}, "sub/a_test.go:1:package sub"},
		{"subdirectory", map[string]any{"pattern": "TODO|todo", "path": "sub"}, "sub/a_test.go:2:// todo: more\nsub/notes.md:1:TODO later"},
		{"single file", map[string]any{"pattern": `func \w+\(`, "path": "main.go"}, "main.go:3:func main() {"},
		{"explicit binary file", map[string]any{"pattern": "TODO", "path": "bin.dat"}, "[skipped bin.dat: binary file]\nno matches for \"TODO\" in 0 files searched"},
		{
			"max matches",
			map[string]any{"pattern": ".", "path": "main.go", "max_matches": 2},
			"main.go:1:package main\nmain.go:3:func main() {\n[stopped after 2 matches; narrow the pattern, path or glob, or raise max_matches (at most 1000)]",
		},
		{"no match", map[string]any{"pattern": "nothing here"}, "no matches for \"nothing here\" in 5 files searched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameGrep, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("grep mismatch (-want +got):\n%s", diff)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad regexp", map[string]any{"pattern": "a(b"}, "pattern is not a valid Go regular expression: error parsing regexp: missing closing ): `a(b`"},
		{"bad glob", map[string]any{"pattern": "a", "glob": "[x"}, `glob "[x" is malformed`},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, `searching "nope": no such file or directory`},
		{"max too large", map[string]any{"pattern": "a", "max_matches": 5000}, "max_matches 5000 is out of range; use 1 to 1000"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, nameGrep, tt.args, tt.want)
		})
	}
}

func TestGrepLongLinesAndManyFiles(t *testing.T) {
	e := newEnv(t, nil)
	for i := range 30 {
		write(t, filepath.Join(e.root, fmt.Sprintf("d%d", i%3), fmt.Sprintf("f%02d.txt", i)), "needle\n")
	}
	// A line longer than the scanner's first buffer still matches.
	write(t, filepath.Join(e.root, "huge.txt"), strings.Repeat("y", 200<<10)+"needle\n")
	got := e.ok(t, nameGrep, map[string]any{"pattern": "needle", "max_matches": 1000})
	if n := strings.Count(got, "\n") + 1; n != 31 {
		t.Errorf("got %d matches, want 31:\n%s", n, got)
	}
}
