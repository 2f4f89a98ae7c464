//go:build linux

package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/protect"
)

// protectedEnv is a root holding Switchboard's data directory and config
// below parent folders (proj/state/data, proj/etc/sb.yaml), plus a config
// path Switchboard would discover but that does not exist yet.
func protectedEnv(t *testing.T) (e *env, root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "state", "data", "switchboard.db"), "key-hash-1234\n")
	write(t, filepath.Join(root, "state", "data", "tool-output", "x.txt"), "someone else's output key-hash-1234\n")
	write(t, filepath.Join(root, "etc", "sb.yaml"), "apiKey: key-hash-1234\n")
	write(t, filepath.Join(root, "state", "notes.txt"), "fine\n")
	set, err := protect.New([]protect.Item{
		{Path: filepath.Join(root, "state", "data"), What: "Switchboard's data directory"},
		{Path: filepath.Join(root, "etc", "sb.yaml"), What: "Switchboard's config file"},
		{Path: filepath.Join(root, "switchboard.yaml"), What: "a config file Switchboard would load"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return newEnvAt(t, root, &Options{Protected: set}), root
}

func TestFileToolsRefuseProtectedFiles(t *testing.T) {
	e, root := protectedEnv(t)
	const refused = "which is out of reach of tools"
	if err := os.Symlink("state/data", filepath.Join(root, "sneaky")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "etc", "sb.yaml"), filepath.Join(root, "hard.yaml")); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read the database", nameReadFile, map[string]any{"path": "state/data/switchboard.db"}},
		{"read another user's output", nameReadFile, map[string]any{"path": filepath.Join(root, "state/data/tool-output/x.txt")}},
		{"read the config", nameReadFile, map[string]any{"path": "etc/sb.yaml"}},
		{"read through a symlink", nameReadFile, map[string]any{"path": "sneaky/switchboard.db"}},
		{"read a hard link to the config", nameReadFile, map[string]any{"path": "hard.yaml"}},
		{"list the data directory", nameListDir, map[string]any{"path": "state/data"}},
		{"grep the data directory", nameGrep, map[string]any{"pattern": "key-hash", "path": "state/data"}},
		{"replace the config", nameWriteFile, map[string]any{"path": "etc/sb.yaml", "content": "mcpServers: {evil: {command: /bin/sh}}\n"}},
		{"plant a discovered config", nameWriteFile, map[string]any{"path": "switchboard.yaml", "content": "mcpServers: {evil: {command: /bin/sh}}\n"}},
		{"write into the data directory", nameWriteFile, map[string]any{"path": "state/data/new/x.txt", "content": "x"}},
		{"write over a hard link to the config", nameWriteFile, map[string]any{"path": "hard.yaml", "content": "x"}},
		{"edit the config", nameEditFile, map[string]any{"path": "etc/sb.yaml", "old_text": "apiKey", "new_text": "key"}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			e.fail(t, c.tool, c.args, refused)
		})
	}
	if _, err := os.Stat(filepath.Join(root, "state", "data", "new")); err == nil {
		t.Error("a refused write created a directory inside the data directory")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc", "sb.yaml")); string(b) != "apiKey: key-hash-1234\n" {
		t.Errorf("the config changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(root, "switchboard.yaml")); err == nil {
		t.Error("write_file planted switchboard.yaml")
	}

	// What lies around the protected files still works, and a walk of the
	// whole root shows nothing of them.
	if got := e.ok(t, nameReadFile, map[string]any{"path": "state/notes.txt"}); !strings.Contains(got, "fine") {
		t.Errorf("read_file of a neighbour: %s", got)
	}
	e.ok(t, nameWriteFile, map[string]any{"path": "state/other.txt", "content": "ok"})
	if got := e.ok(t, nameGrep, map[string]any{"pattern": "key-hash"}); strings.Contains(got, "key-hash-1234") {
		t.Errorf("grep over the root found protected content:\n%s", got)
	}
	if got := e.ok(t, nameListDir, map[string]any{"path": ".", "depth": 3}); strings.Contains(got, "switchboard.db") || !strings.Contains(got, "not listed") {
		t.Errorf("list_dir over the root:\n%s", got)
	}
}

// A rename of the parent folders (as a sandboxed command could have done
// before this release, or the person does) does not uncover them: the next
// call still refuses them where they are now.
func TestFileToolsFollowRenamedParents(t *testing.T) {
	e, root := protectedEnv(t)
	if err := os.Rename(filepath.Join(root, "state"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "etc"), filepath.Join(root, "etc2")); err != nil {
		t.Fatal(err)
	}
	const refused = "out of reach of tools"
	e.fail(t, nameReadFile, map[string]any{"path": "moved/data/switchboard.db"}, refused)
	e.fail(t, nameReadFile, map[string]any{"path": "etc2/sb.yaml"}, refused)
	e.fail(t, nameWriteFile, map[string]any{"path": "etc2/sb.yaml", "content": "x"}, refused)
	e.fail(t, nameGrep, map[string]any{"pattern": "key", "path": "moved/data"}, refused)
}
