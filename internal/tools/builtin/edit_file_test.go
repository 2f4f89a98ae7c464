package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEditFile(t *testing.T) {
	const src = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		args    map[string]any
		want    string // result text
		content string // file afterwards
	}{
		{
			"unique",
			map[string]any{"old_text": "func a() {\n\treturn 1", "new_text": "func a() {\n\treturn 2"},
			`edited "f.go": replaced 1 occurrence (at line 1 of the old file)`,
			strings.Replace(src, "return 1", "return 2", 1),
		},
		{
			"replace all",
			map[string]any{"old_text": "return 1", "new_text": "return 3", "replace_all": true},
			`edited "f.go": replaced 2 occurrences (at lines 2, 6 of the old file)`,
			strings.ReplaceAll(src, "return 1", "return 3"),
		},
		{
			"delete",
			map[string]any{"old_text": "\nfunc b() {\n\treturn 1\n}\n", "new_text": ""},
			`edited "f.go": replaced 1 occurrence (at line 4 of the old file)`,
			"func a() {\n\treturn 1\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			p := filepath.Join(e.root, "f.go")
			write(t, p, src)
			tt.args["path"] = "f.go"
			got := e.ok(t, nameEditFile, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			b, _ := os.ReadFile(p)
			if diff := cmp.Diff(tt.content, string(b)); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditFileErrors(t *testing.T) {
	e := newEnv(t, nil)
	const src = "x := 1\ny := 1\nz := 1\n"
	write(t, filepath.Join(e.root, "f.go"), src)
	write(t, filepath.Join(e.root, "bin"), "a\x00b")
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{
			"ambiguous",
			map[string]any{"path": "f.go", "old_text": " := 1", "new_text": " := 2"},
			`old_text occurs 3 times in "f.go" (at lines 1, 2, 3); add surrounding lines to old_text so that it matches exactly once, or set replace_all to true to replace every occurrence`,
		},
		{
			"absent",
			map[string]any{"path": "f.go", "old_text": "w := 1", "new_text": "w := 2"},
			`old_text was not found in "f.go"; read the file again and copy the text exactly, including whitespace, indentation and line breaks`,
		},
		{
			"spacing inside a line differs",
			map[string]any{"path": "f.go", "old_text": "x:=1", "new_text": "x := 2"},
			`old_text was not found in "f.go"; read the file again and copy the text exactly, including whitespace, indentation and line breaks`,
		},
		{
			"indentation differs",
			map[string]any{"path": "f.go", "old_text": "  y := 1\n  z := 1", "new_text": "w"},
			`old_text was not found exactly in "f.go", but text that differs only in whitespace or indentation starts at line 2; read those lines with read_file and copy them exactly`,
		},
		{"no change", map[string]any{"path": "f.go", "old_text": "x", "new_text": "x"}, "the edit would change nothing"},
		{"empty old_text", map[string]any{"path": "f.go", "old_text": "", "new_text": "x"}, "old_text is empty"},
		{"missing file", map[string]any{"path": "nope.go", "old_text": "a", "new_text": "b"}, "no such file or directory"},
		{"binary", map[string]any{"path": "bin", "old_text": "a", "new_text": "b"}, "looks like a binary file"},
		{"directory", map[string]any{"path": ".", "old_text": "a", "new_text": "b"}, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.fail(t, nameEditFile, tt.args, tt.want)
			if strings.HasPrefix(tt.want, "old_text occurs") || strings.HasPrefix(tt.want, "old_text was not") {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "f.go")); string(b) != src {
		t.Errorf("a failed edit changed the file: %q", b)
	}
}

func TestMatchLines(t *testing.T) {
	tests := []struct {
		s, old string
		want   string
	}{
		{"a\na\na\n", "a", "1, 2, 3"},
		{"ab\nab", "b\na", "1"},
		{strings.Repeat("x\n", 12), "x", "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ..."},
		{"aaaa", "aa", "1, 1"},
	}
	for _, tt := range tests {
		if got := matchLines(tt.s, tt.old, 10); got != tt.want {
			t.Errorf("matchLines(%q, %q) = %q, want %q", tt.s, tt.old, got, tt.want)
		}
	}
}

func TestLooseMatch(t *testing.T) {
	const s = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
	tests := []struct {
		old  string
		want int
	}{
		{"if x {\n    return 1", 2},
		{"return 1  ", 3},
		{"x {\r\n  return 1\r\n}", 2},
		{"return 2", 0},
		{"   ", 0},
		{"if x {\nreturn 2", 0},
	}
	for _, tt := range tests {
		if got := looseMatch(s, tt.old); got != tt.want {
			t.Errorf("looseMatch(%q) = %d, want %d", tt.old, got, tt.want)
		}
	}
}
