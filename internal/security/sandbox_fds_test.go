//go:build linux

package security

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestSandboxInheritedDescriptors: Switchboard is started by a parent that
// leaves it descriptor 3 on a secret file and 4 on a directory outside the
// roots. A terminal command and a stdio server, sandboxed and not, try
// them by number and through /proc/self/fd; none gets either.
func TestSandboxInheritedDescriptors(t *testing.T) {
	node, script, nodeRead := hostileServer(t)
	for _, sandboxed := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			if sandboxed {
				sandboxtest.Require(t)
			}
			dir := t.TempDir()
			proj, outside := filepath.Join(dir, "proj"), filepath.Join(dir, "outside")
			for _, d := range []string{proj, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, filepath.Join(outside, "secret"), "fd-secret-content")
			writeFile(t, filepath.Join(outside, "other"), "fd-dir-content")
			secret, err := os.Open(filepath.Join(outside, "secret"))
			if err != nil {
				t.Fatal(err)
			}
			defer secret.Close()
			outDir, err := os.Open(outside)
			if err != nil {
				t.Fatal(err)
			}
			defer outDir.Close()

			mode, sb := "off", "false"
			if sandboxed {
				mode, sb = "required", "{read: "+yamlList(nodeRead...)+"}"
			}
			cfg := filepath.Join(dir, "switchboard.yaml")
			writeFile(t, cfg, fmt.Sprintf(`builtin: {roots: [%q], terminal: {sandbox: %s}}
approvals: {mode: allow-all}
mcpServers:
  hostile: {command: %q, args: [%q], sandbox: %s}
`, proj, mode, node, script, sb))
			extra := []*os.File{secret, outDir}
			// Descriptor 5 on PostgreSQL's socket directory, when this
			// machine has one: the way to its superuser the issue found.
			pgDir, err := os.Open("/run/postgresql")
			pg := err == nil
			if pg {
				defer pgDir.Close()
				if _, err := os.Stat("/run/postgresql/.s.PGSQL.5432"); err != nil {
					pg = false
				} else if _, err := exec.LookPath("psql"); err != nil {
					pg = false
				}
			}
			if pg {
				extra = append(extra, pgDir)
			}
			p := startMCP(t, dir, cfg, extra...)
			// The attack needs the descriptors in Switchboard itself.
			if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/3", p.cmd.Process.Pid)); l != filepath.Join(outside, "secret") {
				t.Fatalf("switchboard's descriptor 3 is %q; the test did not hand it the secret", l)
			}

			// Unsandboxed, the paths are readable by name; the command
			// names only descriptors, so the contents can come only
			// through them. (Unsandboxed, a command has Switchboard's own
			// permissions and may read /proc/<switchboard>/fd/3 as it may
			// read the file; sandboxed, its parent is the shim, pid 1.)
			line := "cat <&3; cat <&4; cat /proc/self/fd/3 /proc/self/fd/4/other; ls -l /proc/self/fd/"
			if sandboxed {
				line += "; cat /proc/$PPID/fd/3 /proc/$PPID/fd/4/other /proc/1/fd/3"
			}
			if pg {
				line += "; psql -h /proc/self/fd/5 -U postgres -d postgres -Atc 'select 4242*2'"
			}
			outs := map[string]string{
				"terminal":              p.call(t, "terminal", map[string]any{"command": line}),
				"server run":            p.call(t, "hostile__run", map[string]any{"command": line}),
				"server fd 3":           p.call(t, "hostile__read_file", map[string]any{"path": "/proc/self/fd/3"}),
				"server fd 4/other":     p.call(t, "hostile__read_file", map[string]any{"path": "/proc/self/fd/4/other"}),
				"server parent fd 3":    p.call(t, "hostile__read_file", map[string]any{"path": "/proc/1/fd/3"}),
				"server parent fd dir":  p.call(t, "hostile__list_dir", map[string]any{"path": "/proc/1/fd/4"}),
				"server descriptor ids": p.call(t, "hostile__list_dir", map[string]any{"path": "/proc/self/fd"}),
			}
			if !strings.Contains(outs["server descriptor ids"], "ok:") {
				t.Fatalf("the server did not answer: %q", outs["server descriptor ids"])
			}
			for what, out := range outs {
				for _, leak := range []string{"fd-secret-content", "fd-dir-content", outside, "8484"} {
					if strings.Contains(out, leak) {
						t.Errorf("%s reached %q through an inherited descriptor:\n%s", what, leak, out)
					}
				}
			}
		})
	}
}
