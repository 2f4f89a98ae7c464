package sandbox_test

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
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
	type variant struct {
		name string
		cmd  func() *exec.Cmd
		took []time.Duration
	}
	mk := func(p *sandbox.Policy) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd, err := sandbox.Command(p, root, nil, "/bin/true")
			if err != nil {
				b.Fatal(err)
			}
			return cmd
		}
	}
	vs := []*variant{
		{name: "floor", cmd: func() *exec.Cmd { return exec.Command("/bin/true") }},
		{name: "unconfined", cmd: mk(nil)},
		{name: "confined-testbin", cmd: mk(p)},
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		// The engine not chosen, for docs/ARCHITECTURE.md: bubblewrap with
		// the same namespaces and a comparable view (system read-only,
		// root writable, fresh /proc, /dev and /tmp).
		vs = append(vs, &variant{name: "bwrap", cmd: func() *exec.Cmd {
			return exec.Command(bwrap, "--unshare-all", "--die-with-parent", "--new-session",
				"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--symlink", "usr/lib", "/lib",
				"--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc",
				"--dev", "/dev", "--tmpfs", "/tmp", "--bind", root, root, "--chdir", root, "/bin/true")
		}})
	}
	if exe := os.Getenv("SWITCHBOARD_BENCH_EXE"); exe != "" {
		pe := *p
		pe.Exe = exe
		vs = append(vs, &variant{name: "confined-switchboard", cmd: mk(&pe)})
	}
	i := 0
	for b.Loop() {
		order := slices.Clone(vs)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		i++
		for _, v := range order {
			start := time.Now()
			if err := v.cmd().Run(); err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			v.took = append(v.took, time.Since(start))
		}
	}
	for _, v := range vs {
		b.ReportMetric(median(v.took).Seconds()*1000, v.name+"-ms/start")
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
