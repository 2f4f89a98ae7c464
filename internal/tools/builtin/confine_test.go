//go:build unix

package builtin

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostile sets up a root next to an outside directory holding a secret, and
// a zoo of hostile entries inside the root.
type hostile struct {
	*env
	outside string // a directory outside every root
	secret  string // outside/secret.txt
}

const secretText = "TOP-SECRET-CONTENT\n"

func newHostile(t *testing.T) *hostile {
	t.Helper()
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{env: newEnv(t, nil), outside: outside, secret: filepath.Join(outside, "secret.txt")}
	write(t, h.secret, secretText)
	r := h.root
	write(t, filepath.Join(r, "in.txt"), "inside\n")
	write(t, filepath.Join(r, "ünï", "çødé.txt"), "unicode ✓\n")
	links := map[string]string{
		"linkout": h.secret,                                                  // leaf symlink out, absolute
		"relout":  filepath.Join("..", filepath.Base(outside), "secret.txt"), // leaf symlink out, relative
		"dirout":  outside,                                                   // middle component out
		"linkin":  "in.txt",                                                  // inside: fine
		"zero":    "/dev/zero",
		"null":    "/dev/null",
		"loop":    "loop",
		"etc":     "/etc",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(r, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(r, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(r, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return h
}

// assertOutsideUntouched checks that nothing outside changed.
func (h *hostile) assertOutsideUntouched(t *testing.T) {
	t.Helper()
	got, err := os.ReadFile(h.secret)
	if err != nil || string(got) != secretText {
		t.Fatalf("the secret outside the root changed: %q, %v", got, err)
	}
	es, err := os.ReadDir(h.outside)
	if err != nil || len(es) != 1 {
		t.Fatalf("something was created outside the root: %v %v", es, err)
	}
	es, err = os.ReadDir(filepath.Dir(h.root))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Name(), "escape") {
			t.Fatalf("something was created next to the root: %s", e.Name())
		}
	}
}

const outsideMsg = "is outside the allowed roots ("

func TestHostilePaths(t *testing.T) {
	h := newHostile(t)
	long := strings.Repeat("a/", maxPathLen/2+1)
	tests := []struct {
		name, path, want string
	}{
		{"dotdot", "../escape.txt", outsideMsg},
		{"dotdot twice", "../../etc/passwd", outsideMsg},
		{"dotdot after a dir", "sub/../../escape.txt", outsideMsg},
		{"dotdot only", "..", outsideMsg},
		{"absolute outside", "/etc/passwd", outsideMsg},
		{"absolute secret", "SECRET", outsideMsg},
		{"absolute sibling with root prefix", "ROOT-escape/x", outsideMsg},
		{"symlink out at leaf", "linkout", outsideMsg},
		{"relative symlink out at leaf", "relout", outsideMsg},
		{"symlink out at a middle component", "dirout/secret.txt", outsideMsg},
		{"symlink to /etc at a middle component", "etc/passwd", outsideMsg},
		{"symlink to /dev/zero", "zero", outsideMsg},
		{"symlink to /dev/null", "null", outsideMsg},
		{"symlink loop", "loop", "symbolic links"},
		{"fifo", "fifo", "named pipe"},
		{"socket", "sock", "socket"},
		{"very long path", long, "more than the 4096 allowed"},
		{"very long component", strings.Repeat("x", 300), "too long"},
		{"NUL byte", "in.txt\x00.png", "NUL byte"},
		{"empty", "", "path is empty"},
		{"missing", "nope/none.txt", "no such file or directory"},
		{"tilde is not expanded", "~/.ssh/id_rsa", "no such file or directory"},
		{"file as a directory", "in.txt/x", "not a directory"},
	}
	fix := func(p string) string {
		p = strings.ReplaceAll(p, "SECRET", h.secret)
		return strings.ReplaceAll(p, "ROOT", h.root)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fix(tt.path)
			msg := h.fail(t, nameReadFile, map[string]any{"path": p}, tt.want)
			if tt.want == outsideMsg && !strings.Contains(msg, h.root) {
				t.Errorf("error does not name the root: %s", msg)
			}
			if tt.name != "missing" && tt.name != "tilde is not expanded" && tt.name != "very long component" {
				h.fail(t, nameWriteFile, map[string]any{"path": p, "content": "pwned"}, "")
				h.fail(t, nameEditFile, map[string]any{"path": p, "old_text": "TOP", "new_text": "pwned"}, "")
			}
			h.assertOutsideUntouched(t)
		})
	}
	// The error text is exactly what the model needs to correct itself.
	got := h.fail(t, nameReadFile, map[string]any{"path": "/etc/passwd"}, outsideMsg)
	if want := `path "/etc/passwd" is outside the allowed roots (` + h.root + `); use a path inside one of them`; got != want {
		t.Errorf("message:\n got %s\nwant %s", got, want)
	}
}

func TestHostileWrites(t *testing.T) {
	h := newHostile(t)
	for _, tt := range []struct{ path, want string }{
		{"../escape.txt", outsideMsg},
		{"dirout/new.txt", outsideMsg},
		{"dirout/deep/new.txt", outsideMsg},
		{"linkout", outsideMsg},
		{"relout", outsideMsg},
		{"etc/escape", outsideMsg},
		{"zero", outsideMsg},
		{"null", outsideMsg},
		{h.outside + "/escape.txt", outsideMsg},
		{"fifo", "is a named pipe (FIFO), not a regular file"},
		{"sock", "is a socket, not a regular file"},
		{".", "is a directory, not a file"},
		{"ünï", "is a directory, not a file"},
		{"in.txt/sub.txt", "not a directory"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			h.fail(t, nameWriteFile, map[string]any{"path": tt.path, "content": "pwned"}, tt.want)
			h.assertOutsideUntouched(t)
		})
	}
}

func TestHostileDirectories(t *testing.T) {
	h := newHostile(t)
	for _, p := range []string{"..", "../..", "/", "dirout", "etc", h.outside, "dirout/../.."} {
		t.Run(p, func(t *testing.T) {
			h.fail(t, nameListDir, map[string]any{"path": p}, outsideMsg)
			h.fail(t, nameGrep, map[string]any{"pattern": "SECRET", "path": p}, outsideMsg)
			h.fail(t, nameTerminal, map[string]any{"command": "true", "cwd": p}, outsideMsg)
		})
	}
	// Walking the whole root never follows the links out.
	got := h.ok(t, nameGrep, map[string]any{"pattern": "TOP-SECRET|root:"})
	if !strings.HasPrefix(got, "no matches") {
		t.Errorf("grep reached outside the root: %s", got)
	}
	got = h.ok(t, nameListDir, map[string]any{"depth": 5})
	if strings.Contains(got, "dirout/") || strings.Contains(got, "passwd") || !strings.Contains(got, "linkout -> "+h.secret+"  (outside the allowed roots)") {
		t.Errorf("list_dir reached outside the root: %s", got)
	}
}

func TestInsidePathsWork(t *testing.T) {
	h := newHostile(t)
	for _, p := range []string{"in.txt", "./in.txt", "ünï/../in.txt", "linkin", h.root + "/in.txt", h.root + "//ünï/../in.txt"} {
		if got := h.ok(t, nameReadFile, map[string]any{"path": p}); got != "inside\n" {
			t.Errorf("read_file %q = %q", p, got)
		}
	}
	if got := h.ok(t, nameReadFile, map[string]any{"path": "ünï/çødé.txt"}); got != "unicode ✓\n" {
		t.Errorf("unicode read = %q", got)
	}
	// Writing through a symlink that stays inside replaces its target.
	h.ok(t, nameWriteFile, map[string]any{"path": "linkin", "content": "new\n"})
	if got, _ := os.ReadFile(filepath.Join(h.root, "in.txt")); string(got) != "new\n" {
		t.Errorf("target after writing through link = %q", got)
	}
	if st, err := os.Lstat(filepath.Join(h.root, "linkin")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link itself was replaced: %v %v", st, err)
	}
}

func TestSeveralRoots(t *testing.T) {
	second, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(second, "b.txt"), "b\n")
	// The second root is configured through a symlink: both spellings work.
	linkDir := t.TempDir()
	alias := filepath.Join(linkDir, "alias")
	if err := os.Symlink(second, alias); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil, alias)
	for _, p := range []string{second + "/b.txt", alias + "/b.txt"} {
		if got := e.ok(t, nameReadFile, map[string]any{"path": p}); got != "b\n" {
			t.Errorf("read %q = %q", p, got)
		}
	}
	msg := e.fail(t, nameReadFile, map[string]any{"path": "/etc/hosts"}, outsideMsg)
	if !strings.Contains(msg, "("+e.root+", "+alias+")") {
		t.Errorf("error does not list both roots: %s", msg)
	}
	// Relative paths are relative to the first root only.
	e.fail(t, nameReadFile, map[string]any{"path": "b.txt"}, "no such file")
	e.ok(t, nameWriteFile, map[string]any{"path": alias + "/c/d.txt", "content": "d"})
	if got, _ := os.ReadFile(filepath.Join(second, "c", "d.txt")); string(got) != "d" {
		t.Errorf("write in second root: %q", got)
	}
}

// TestDeviceNodeInsideRoot needs the privilege to create device nodes; it is
// skipped without it.
func TestDeviceNodeInsideRoot(t *testing.T) {
	e := newEnv(t, nil)
	p := filepath.Join(e.root, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // like /dev/null
		t.Skipf("cannot create a device node: %v", err)
	}
	e.fail(t, nameReadFile, map[string]any{"path": "null"}, `"null" is a character device, not a regular file`)
	e.fail(t, nameWriteFile, map[string]any{"path": "null", "content": "x"}, "is a character device")
	e.fail(t, nameEditFile, map[string]any{"path": "null", "old_text": "a", "new_text": "b"}, "is a character device")
	if got := e.ok(t, nameGrep, map[string]any{"pattern": "x"}); got != "no matches for \"x\" in 0 files searched" {
		t.Errorf("grep: %q", got)
	}
	if got := e.ok(t, nameListDir, map[string]any{}); !strings.Contains(got, "null  (a character device)") {
		t.Errorf("list_dir: %q", got)
	}
}
