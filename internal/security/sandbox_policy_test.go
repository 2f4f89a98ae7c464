//go:build linux

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestSandboxedServerCannotWidenItsPolicy: a sandboxed stdio server
// replaces one of its policy paths with a symlink to / and kills itself;
// its supervisor restarts it. After the restart it still cannot read
// outside its policy (the cwd case), or it does not start at all and says
// why (a write path it could replace).
func TestSandboxedServerCannotWidenItsPolicy(t *testing.T) {
	sandboxtest.Require(t)
	node, script, nodeRead := hostileServer(t)
	for _, tc := range []struct {
		name string
		// sandbox is the server's sandbox setting; %[1]q is proj, %[2]s
		// node's read paths, %[3]q proj/out.
		sandbox string
		// swap is the path, relative to proj, the server replaces.
		swap string
		// refused: the restart must fail with this in the error.
		refused string
		// byTerminal: the sandboxed terminal, whose root holds the path,
		// replaces it (inside the server's own sandbox it is a mount
		// point, which cannot be moved).
		byTerminal bool
	}{
		{"cwd inside the write paths", "{read: %[2]s}", "srv", "", false},
		{"write path inside a write path", "{read: %[2]s, write: [%[1]q, %[3]q]}", "out", "leads through the symlink", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			proj, outside := filepath.Join(dir, "proj"), filepath.Join(dir, "outside")
			for _, d := range []string{filepath.Join(proj, "srv"), filepath.Join(proj, "out"), outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, 0o755); err != nil { // nobody may pass, as through any home directory
				t.Fatal(err)
			}
			secret := filepath.Join(outside, "secret")
			if err := os.WriteFile(secret, []byte("outside-the-policy"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(dir, "switchboard.yaml")
			writeFile(t, cfg, fmt.Sprintf(`builtin: {roots: [%q], terminal: {sandbox: required}}
approvals: {mode: allow-all}
mcpServers:
  hostile: {command: %q, args: [%q], cwd: %q, sandbox: %s}
`, proj, node, script, filepath.Join(proj, "srv"), fmt.Sprintf(tc.sandbox, proj, yamlList(nodeRead...), filepath.Join(proj, "out"))))
			p := startMCP(t, dir, cfg)

			if out := p.call(t, "hostile__read_file", map[string]any{"path": secret}); !strings.Contains(out, "denied") {
				t.Fatalf("before the attack, reading outside the policy gave %q; want denied", out)
			}
			// The attack: move the directory away, plant a symlink to /
			// in its place, and die so that the supervisor restarts it.
			swap := filepath.Join(proj, tc.swap)
			plant := fmt.Sprintf("mv %[1]s %[1]s.real && ln -s / %[1]s && ls -ld %[1]s", swap)
			var out string
			if tc.byTerminal {
				out = p.call(t, "terminal", map[string]any{"command": plant})
				out += p.call(t, "hostile__run", map[string]any{"command": "kill -9 $PPID"})
			} else {
				out = p.call(t, "hostile__run", map[string]any{"command": plant + " && kill -9 $PPID"})
			}
			if target, err := os.Readlink(swap); err != nil || target != "/" {
				t.Fatalf("the server could not plant the symlink (%v, %q): %s", err, target, out)
			}

			// Wait for the restart (backoff) and try again.
			deadline := time.Now().Add(20 * time.Second)
			var last string
			for time.Now().Before(deadline) {
				last = p.call(t, "hostile__read_file", map[string]any{"path": secret})
				if strings.HasPrefix(last, "ok:") || strings.HasPrefix(last, "denied:") || strings.Contains(p.stderr.String(), "cannot start") {
					break
				}
				time.Sleep(200 * time.Millisecond) // polling the supervisor's backoff
			}
			if strings.Contains(last, "outside-the-policy") {
				t.Fatalf("after its restart the server read outside its policy: %q", last)
			}
			if tc.refused == "" {
				if !strings.HasPrefix(last, "denied:") {
					t.Fatalf("the server did not come back within 20s: %q", last)
				}
				if root := p.call(t, "hostile__list_dir", map[string]any{"path": "/root"}); !strings.Contains(root, "denied") {
					t.Errorf("after its restart the server lists /root: %q", root)
				}
				return
			}
			if strings.HasPrefix(last, "denied:") || strings.HasPrefix(last, "ok:") {
				t.Fatalf("the server restarted on a replaced write path: %q", last)
			}
			// It stays down, the running Switchboard says why, and so
			// does a fresh one (doctor), which loads the configuration
			// anew: the symlink could have been planted.
			eventually(t, "switchboard logs the refused restart", func() bool {
				return strings.Contains(p.stderr.String(), "no longer the directory")
			})
			r := switchboard(t, dir, "doctor", "--config", cfg, "--data", filepath.Join(dir, "data"), "--server", "hostile")
			if !strings.Contains(r.stdout+r.stderr, tc.refused) || !strings.Contains(r.stdout+r.stderr, swap) {
				t.Errorf("doctor does not say the write path %s was replaced (exit %d):\n%s\n%s\nlast call: %s", swap, r.code, r.stdout, r.stderr, last)
			}
		})
	}
}

// TestSandboxReadPathInsideWritePathRefused: a configured read path inside
// the server's write paths is refused before the server runs, and doctor
// says why.
func TestSandboxReadPathInsideWritePathRefused(t *testing.T) {
	sandboxtest.Require(t)
	node, script, nodeRead := hostileServer(t)
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "switchboard.yaml")
	writeFile(t, cfg, fmt.Sprintf(`builtin: {roots: [%q]}
mcpServers:
  hostile: {command: %q, args: [%q], sandbox: {read: %s}}
`, proj, node, script, yamlList(append(nodeRead, filepath.Join(proj, "lib"))...)))
	r := switchboard(t, dir, "doctor", "--config", cfg, "--data", filepath.Join(dir, "data"), "--server", "hostile")
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, filepath.Join(proj, "lib")) || !strings.Contains(out, "inside the write path") || !strings.Contains(out, "widen its own policy") {
		t.Errorf("doctor with a read path inside a write path: exit %d\n%s", r.code, out)
	}
}
