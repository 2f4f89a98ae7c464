//go:build linux

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestSandboxAsRootCannotReadRootOnlyFiles: Switchboard runs as root (as
// in containers). A sandboxed server and a sandboxed terminal command try
// files only root may read, in a read path and in /etc, that no list of
// hidden files names; each is refused, while the terminal still works in
// its root and what it writes there belongs to root.
func TestSandboxAsRootCannotReadRootOnlyFiles(t *testing.T) {
	sandboxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("this attack needs Switchboard running as root")
	}
	node, script, nodeRead := hostileServer(t)
	dir := t.TempDir()
	proj, ro := filepath.Join(dir, "proj"), filepath.Join(dir, "ro")
	for _, d := range []string{proj, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro, "private"), []byte("root-only-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro, "public"), []byte("world-readable-content"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "switchboard.yaml")
	writeFile(t, cfg, fmt.Sprintf(`builtin: {roots: [%q], terminal: {sandbox: required}}
approvals: {mode: allow-all}
mcpServers:
  hostile: {command: %q, args: [%q], sandbox: {read: %s}}
`, proj, node, script, yamlList(append(nodeRead, ro)...)))
	p := startMCP(t, dir, cfg)

	targets := []string{filepath.Join(ro, "private")}
	if _, err := os.Stat("/etc/security/opasswd"); err == nil {
		targets = append(targets, "/etc/security/opasswd")
	}
	for _, f := range targets {
		if out := p.call(t, "hostile__read_file", map[string]any{"path": f}); !strings.HasPrefix(out, "denied: EACCES") {
			t.Errorf("the server read %s: %q; want EACCES", f, out)
		}
		// The terminal's read paths are the system and its roots: ro is
		// not there at all, /etc is.
		out := p.call(t, "terminal", map[string]any{"command": "cat " + f})
		if strings.Contains(out, "root-only-content") || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "No such file") {
			t.Errorf("the terminal read %s: %q; want it refused", f, out)
		}
		if strings.HasPrefix(f, "/etc/") && !strings.Contains(out, "Permission denied") {
			t.Errorf("the terminal on %s: %q; want Permission denied", f, out)
		}
	}
	if out := p.call(t, "hostile__read_file", map[string]any{"path": filepath.Join(ro, "public")}); !strings.Contains(out, "world-readable-content") {
		t.Errorf("the server cannot read a world-readable file in its read path: %q", out)
	}
	// The terminal still works in its root, on root's files.
	writeFile(t, filepath.Join(proj, "notes"), "root-owned-notes")
	out := p.call(t, "terminal", map[string]any{"command": "cat notes && echo made > made && mkdir d && mv made d/ && cat d/made"})
	if !strings.Contains(out, "root-owned-notes") || !strings.Contains(out, "made") || strings.Contains(out, "denied") {
		t.Errorf("the terminal cannot work in its root as root: %q", out)
	}
	st, err := os.Stat(filepath.Join(proj, "d", "made"))
	if err != nil {
		t.Fatalf("the terminal's file is missing: %v (%s)", err, out)
	}
	if s := st.Sys().(*syscall.Stat_t); s.Uid != 0 || s.Gid != 0 {
		t.Errorf("the terminal's file belongs to %d:%d; want root, who runs Switchboard", s.Uid, s.Gid)
	}
}
