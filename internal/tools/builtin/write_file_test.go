package builtin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFile(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct {
		name, path, content, want, file string
	}{
		{"create", "a.txt", "hello\nworld\n", `created "a.txt": 12 bytes, 2 lines`, "a.txt"},
		{"overwrite", "a.txt", "bye", `overwrote "a.txt": 3 bytes, 1 line`, "a.txt"},
		{"parents are created", "x/y/z.txt", "deep\n", `created "x/y/z.txt": 5 bytes, 1 line`, "x/y/z.txt"},
		{"empty content", "empty.txt", "", `created "empty.txt": 0 bytes, 0 lines`, "empty.txt"},
		{"absolute inside", e.root + "/abs.txt", "abs", `created "abs.txt": 3 bytes, 1 line`, "abs.txt"},
		{"unicode name", "ünï/çødé.txt", "✓", `created "ünï/çødé.txt": 3 bytes, 1 line`, "ünï/çødé.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameWriteFile, map[string]any{"path": tt.path, "content": tt.content})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			b, err := os.ReadFile(filepath.Join(e.root, tt.file))
			if err != nil || string(b) != tt.content {
				t.Errorf("file holds %q, %v; want %q", b, err, tt.content)
			}
		})
	}
	// No temporary files are left behind.
	es, _ := os.ReadDir(e.root)
	for _, de := range es {
		if de.Name()[0] == '.' {
			t.Errorf("temporary file left: %s", de.Name())
		}
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	e := newEnv(t, nil)
	p := filepath.Join(e.root, "run.sh")
	write(t, p, "#!/bin/sh\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	e.ok(t, nameWriteFile, map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("mode after write = %v, %v; want 0750", st.Mode(), err)
	}
	e.ok(t, nameWriteFile, map[string]any{"path": "new.sh", "content": "x"})
	if st, _ := os.Stat(filepath.Join(e.root, "new.sh")); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v; want 0644", st.Mode())
	}
}

func TestWriteFileErrors(t *testing.T) {
	e := newEnv(t, nil)
	write(t, filepath.Join(e.root, "file"), "x")
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"root directory", map[string]any{"path": ".", "content": "x"}, `"." is a directory, not a file`},
		{"parent is a file", map[string]any{"path": "file/child.txt", "content": "x"}, `"file/child.txt"`},
		{"no content", map[string]any{"path": "a.txt"}, "content is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, nameWriteFile, tt.args, tt.want)
		})
	}
}
