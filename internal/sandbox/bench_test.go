package sandbox_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// BenchmarkStart measures starting and waiting for /bin/true, interleaved
// in one run (A B B A, ...) so that the machine's load hits every variant
// alike: exec directly (the floor), unconfined through [sandbox.Command],
// and confined with this test binary as the shim. With
// SWITCHBOARD_BENCH_EXE set to a built switchboard binary, a fourth
// variant uses it as the shim, as production does; where bubblewrap is
// installed, a variant runs it with a comparable policy, for the engine
// comparison in docs/ARCHITECTURE.md. It reports each variant's median in
// ms/start; ns/op is the time of one round of all.
func BenchmarkStart(b *testing.B) {
	root := b.TempDir()
	if s := sandbox.Check(); !s.Available {
		b.Skipf("no sandbox here: %s", s.Reason)
	}
	p := policyFor(root)
	run := func(p *sandbox.Policy) func() error {
		return func() error {
			cmd, err := sandbox.Command(p, root, nil, "/bin/true")
			if err != nil {
				return err
			}
			return cmd.Run()
		}
	}
	vs := []sandboxtest.Variant{
		{Name: "floor", Run: func() error { return exec.Command("/bin/true").Run() }},
		{Name: "unconfined", Run: run(nil)},
		{Name: "confined-testbin", Run: run(p)},
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		// The engine not chosen, for docs/ARCHITECTURE.md: bubblewrap with
		// the same namespaces and a comparable view (system read-only,
		// root writable, fresh /proc, /dev and /tmp).
		vs = append(vs, sandboxtest.Variant{Name: "bwrap", Run: func() error {
			return exec.Command(bwrap, "--unshare-all", "--die-with-parent", "--new-session",
				"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--symlink", "usr/lib", "/lib",
				"--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc",
				"--dev", "/dev", "--tmpfs", "/tmp", "--bind", root, root, "--chdir", root, "/bin/true").Run()
		}})
	}
	if exe := os.Getenv("SWITCHBOARD_BENCH_EXE"); exe != "" {
		pe := *p
		pe.Exe = exe
		vs = append(vs, sandboxtest.Variant{Name: "confined-switchboard", Run: run(&pe)})
	}
	sandboxtest.Interleave(b, "start", vs...)
}
