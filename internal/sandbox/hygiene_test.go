//go:build linux

package sandbox_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// leakFD opens path in this process without close-on-exec, as a parent
// of Switchboard may have left it, and returns its number; it is closed
// when the test ends.
func leakFD(t *testing.T, path string, flags int) int {
	t.Helper()
	fd, err := syscall.Open(path, flags, 0) // no O_CLOEXEC, on purpose
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	return fd
}

// TestConfinedInheritedDescriptors: descriptors this process holds without
// close-on-exec (a secret file, a directory outside the roots) do not
// reach a confined command, neither by number nor through /proc/self/fd.
func TestConfinedInheritedDescriptors(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("s3cret-fd"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "other"), []byte("other-fd"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	f := strconv.Itoa(leakFD(t, secret, syscall.O_RDONLY))
	d := strconv.Itoa(leakFD(t, outside, syscall.O_RDONLY|syscall.O_DIRECTORY))
	// The leak is real: an exec of this process without the sandbox's
	// shim would hand both on.
	out, _ := sh(t, nil, root, "cat <&"+f+"; cat /proc/self/fd/"+d+"/other")
	if !strings.Contains(out, "s3cret-fd") || !strings.Contains(out, "other-fd") {
		t.Fatalf("the unconfined control did not inherit the descriptors (%q); the test proves nothing", out)
	}
	out, _ = sh(t, p, root, "ls -l /proc/self/fd/ /proc/1/fd/; cat <&"+f+"; cat /proc/self/fd/"+f+" /proc/self/fd/"+d+"/other /proc/1/fd/"+d+"/other")
	for _, s := range []string{"s3cret-fd", "other-fd", outside} {
		if strings.Contains(out, s) {
			t.Errorf("the confined command reached %q through an inherited descriptor:\n%s", s, out)
		}
	}
}

// TestCloseInheritedOnExec: after CloseInheritedOnExec, an unconfined
// command does not get the descriptors either.
func TestCloseInheritedOnExec(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("s3cret-plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := strconv.Itoa(leakFD(t, secret, syscall.O_RDONLY))
	if err := sandbox.CloseInheritedOnExec(); err != nil {
		t.Fatal(err)
	}
	out, _ := sh(t, nil, dir, "cat <&"+f+"; cat /proc/self/fd/"+f)
	if strings.Contains(out, "s3cret-plain") {
		t.Errorf("an unconfined command read an inherited descriptor:\n%s", out)
	}
}

// TestConfinedAsRootSeesOthersPermissions: run as root, the sandbox's
// user is not host root, so a file only root may read stays unreadable in
// a read path, with no list naming it; the write paths still work on
// root's files, and what the command writes belongs to root.
func TestConfinedAsRootSeesOthersPermissions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the mapping to nobody applies when Switchboard runs as root")
	}
	root, ro := t.TempDir(), t.TempDir()
	if err := os.Chmod(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"private": 0o600, "public": 0o644} {
		if err := os.WriteFile(filepath.Join(ro, name), []byte(name+"-content"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "mine"), []byte("mine-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	p.Read = append(p.Read, ro)
	line := "cat " + filepath.Join(ro, "public") + "; cat " + filepath.Join(ro, "private") + "; cat mine; echo new > new; cat /proc/self/uid_map"
	if _, err := os.Stat("/etc/security/opasswd"); err == nil {
		line += "; cat /etc/security/opasswd && echo OPASSWD-READ"
	}
	out, _ := sh(t, p, root, line)
	for _, want := range []string{"public-content", "mine-content"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"private-content", "OPASSWD-READ"} {
		if strings.Contains(out, bad) {
			t.Errorf("the sandbox read a root-only file (%s):\n%s", bad, out)
		}
	}
	if !strings.Contains(out, " 65534 ") {
		t.Errorf("no uid_map line maps to 65534 outside:\n%s", out)
	}
	st, err := os.Stat(filepath.Join(root, "new"))
	if err != nil {
		t.Fatalf("the command could not write in its root: %v\n%s", err, out)
	}
	if s := st.Sys().(*syscall.Stat_t); s.Uid != 0 || s.Gid != 0 {
		t.Errorf("a file the sandbox wrote belongs to %d:%d on the host; want root's", s.Uid, s.Gid)
	}
}

// TestConfinedAsRootHiddenOutOfReach: run as root, a hidden path below a
// directory the sandbox's user cannot search (Switchboard's config under
// /root) does not stop the command from starting, and stays unreadable.
func TestConfinedAsRootHiddenOutOfReach(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the mapping to nobody applies when Switchboard runs as root")
	}
	root := t.TempDir()
	// Outside /tmp, which the sandbox replaces: a 0700 directory of
	// root's, as /root is.
	home, err := os.MkdirTemp("/var/tmp", "sandbox-home-") //nolint:usetesting // t.TempDir is under /tmp, which the sandbox replaces
	if err != nil {
		t.Skip("no /var/tmp to make an out-of-reach directory in:", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	cfg := filepath.Join(home, "switchboard.yaml")
	if err := os.WriteFile(cfg, []byte("apiKey: out-of-reach"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	p.Hide = append(p.Hide, cfg, filepath.Join(home, "data"))
	out, code := sh(t, p, root, "echo ran; cat "+cfg)
	if !strings.Contains(out, "ran") || strings.Contains(out, "out-of-reach") || code == 0 {
		t.Errorf("exit %d, output %q; want the command to run and the file refused", code, out)
	}
}
