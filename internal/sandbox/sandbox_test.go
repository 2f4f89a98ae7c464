package sandbox_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// confined returns a policy confining to root (writable) and the system.
func confined(t *testing.T, root string) *sandbox.Policy {
	t.Helper()
	sandboxtest.Require(t)
	return policyFor(root)
}

// policyFor confines to root (writable) and the system.
func policyFor(root string) *sandbox.Policy {
	return &sandbox.Policy{
		Confine: true,
		Read:    sandbox.SystemRead(),
		Write:   []string{root},
		Hide:    sandbox.SystemHide(),
		Limits:  sandbox.DefaultLimits(),
	}
}

// sh runs a shell command line under p in dir and returns its combined
// output and exit code.
func sh(t *testing.T, p *sandbox.Policy, dir, line string) (string, int) {
	t.Helper()
	cmd, err := sandbox.Command(p, dir, sandbox.Environ(os.Environ(), nil, nil), "/bin/sh", "-c", line)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("running %q: %v", line, err)
	return "", -1
}

func TestConfinedFilesystem(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, ".switchboard")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "switchboard.db"), []byte("tokens"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(root, "switchboard.yaml")
	if err := os.WriteFile(cfgFile, []byte("apiKey: k"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	p.Hide = append(p.Hide, data, cfgFile)

	tests := []struct {
		name, line string
		ok         bool
		notIn      string // must not appear in the output
	}{
		{"write and read inside the root", "echo hi > f && cat f && mkdir d && mv f d/g && ls d && rm -r d", true, ""},
		{"ordinary programs", "ls /usr >/dev/null && grep -c root /etc/passwd && id -u", true, ""},
		{"read outside", "cat " + filepath.Join(outside, "secret"), false, "s3cret"},
		{"list outside", "ls " + outside, false, "secret"},
		{"write outside", "echo x > " + filepath.Join(outside, "new"), false, ""},
		{"write to /etc", "echo x >> /etc/passwd", false, ""},
		{"read the data directory", "cat .switchboard/switchboard.db; ls -A .switchboard", true, "tokens"},
		{"list the data directory", "ls -A .switchboard | wc -l", true, "switchboard.db"},
		{"read the config file", "cat switchboard.yaml", true, "apiKey"},
		{"move the data directory away", "mv .switchboard x", false, ""},
		{"write the config file", "echo evil > switchboard.yaml", true, ""},
		{"read root-only files", "cat /etc/shadow", true, "root:"},
		{"host temp files", "ls -A /tmp | grep -v '^" + strings.Split(strings.TrimPrefix(root, "/tmp/"), "/")[0] + "$' | wc -l", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := sh(t, p, root, tt.line)
			if (code == 0) != tt.ok {
				t.Errorf("exit %d, want success %v; output:\n%s", code, tt.ok, out)
			}
			if tt.notIn != "" && strings.Contains(out, tt.notIn) {
				t.Errorf("output shows %q:\n%s", tt.notIn, out)
			}
		})
	}
	if b, err := os.ReadFile(cfgFile); err != nil || string(b) != "apiKey: k" {
		t.Errorf("config file after the sandbox wrote to it: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a file was created outside the write paths")
	}
}

func TestConfinedProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := confined(t, root)

	// Another process of this user with a secret in its environment.
	other := exec.Command("sleep", "60")
	other.Env = []string{"OTHER_SECRET=hunter2"}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	pids := []string{itoa(os.Getpid()), itoa(other.Process.Pid)}

	for _, pid := range pids {
		out, _ := sh(t, p, root, "cat /proc/"+pid+"/environ; cat /proc/$PPID/environ | tr '\\0' '\\n' | grep -c SECRET")
		if strings.Contains(out, "hunter2") {
			t.Errorf("read the environment of pid %s:\n%s", pid, out)
		}
	}
	// No thread of the shim (pid 1) nor the command keeps a capability.
	out, _ := sh(t, p, root, "grep -h -e CapEff -e CapPrm -e CapBnd /proc/1/task/*/status /proc/self/status | sort -u")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(l, "0000000000000000") {
			t.Errorf("a process in the sandbox has capabilities: %s", out)
			break
		}
	}
	out, _ = sh(t, p, root, "ls /proc | grep -c '^[0-9]'")
	if n := strings.TrimSpace(out); n != "3" && n != "4" { // shim, sh, ls, grep (ls may be gone)
		t.Errorf("the sandbox sees %s processes; want only its own", n)
	}
}

func TestConfinedForkBound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := confined(t, root)
	p.Limits.Processes = 64
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is needed to fork without a shell giving up at the first failure")
	}
	const marker = "987652"
	// Fork up to 1000 children that sleep; the bound stops them long
	// before. perl reports how many it got, then waits on its stdin while
	// the host counts them.
	cmd, err := sandbox.Command(p, root, nil, "perl", "-e",
		`$| = 1; $0 = "forker `+marker+`"; for (1..1000) { my $p = fork; last unless defined $p; if (!$p) { sleep 100; exit } $n++ } print "$n\n"; <STDIN>;`)
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := stdout.Read(buf)
	count := len(sandboxtest.ProcessesWith(marker))
	_ = stdin.Close()
	_ = cmd.Wait()
	forked := atoi(string(buf[:n]))
	if forked == 0 || forked > 64+300 || count > 64+300 {
		t.Errorf("the sandbox forked %d children (%d seen from the host); want at most 64 (64+300 for root)", forked, count)
	}
	if left := sandboxtest.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("%d forked processes outlived the command", len(left))
	}
}

func TestConfinedNetwork(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := confined(t, root)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is needed for /dev/tcp")
	}
	addr, accepted := sandboxtest.Listen(t, "tcp4", "127.0.0.1:0")
	host, port, _ := strings.Cut(addr, ":")
	out, code := sh(t, p, root, "exec bash -c 'echo hi > /dev/tcp/"+host+"/"+port+"'")
	if code == 0 {
		t.Errorf("connecting to %s succeeded:\n%s", addr, out)
	}
	if accepted() {
		t.Errorf("the listener on %s accepted a connection from the sandbox", addr)
	}
	p.Network = true
	out, code = sh(t, p, root, "exec bash -c 'echo hi > /dev/tcp/"+host+"/"+port+"'")
	if code != 0 {
		t.Errorf("with network on, connecting failed (%d):\n%s", code, out)
	}
}

func TestConfinedNothingOutlives(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := confined(t, root)
	const marker = "987651"
	out, code := sh(t, p, root, "setsid sleep "+marker+" & nohup sleep "+marker+" >/dev/null 2>&1 & echo started")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if pids := sandboxtest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes outlived the command: %v", pids)
	}
}

func TestExitStatusAndSignals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := confined(t, root)
	if _, code := sh(t, p, root, "exit 7"); code != 7 {
		t.Errorf("exit status %d, want 7", code)
	}
	// SIGTERM to the shim reaches the command, which says so.
	cmd, err := sandbox.Command(p, root, nil, "/bin/sh", "-c", "trap 'echo got TERM; exit 3' TERM; echo ready; while :; do sleep 0.05; done")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout = &out
	pr, pw, _ := os.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	buf := make([]byte, 6)
	if _, err := pr.Read(buf); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	rest := make([]byte, 64)
	n, _ := pr.Read(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(rest[:n]), "got TERM") {
		t.Errorf("after SIGTERM: %v, output %q; want exit 3 and the trap's output", err, rest[:n])
	}
}

func TestCommandNotReadable(t *testing.T) {
	t.Parallel()
	root, elsewhere := t.TempDir(), t.TempDir()
	prog := filepath.Join(elsewhere, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	cmd, err := sandbox.Command(p, root, nil, prog)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot run "+prog) || !strings.Contains(string(out), "read paths") {
		t.Errorf("running an unreadable program: %v, %q; want a message naming it and the read paths", err, out)
	}
	if _, err := sandbox.Command(p, root, nil, "no-such-program-here"); err == nil {
		t.Error("a missing program was accepted")
	}
}

func TestUnconfined(t *testing.T) {
	t.Parallel()
	cmd, err := sandbox.Command(nil, "", []string{"A=1"}, "sh", "-c", "echo $A $$; ps -o pgid= -p $$")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 || f[0] != "1" || f[1] != f[2] {
		t.Errorf("output %q; want the env value and a process group of its own", out)
	}
	_ = time.Second
}
