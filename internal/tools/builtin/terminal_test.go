//go:build unix

package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestTerminal(t *testing.T) {
	for _, mode := range modes() {
		t.Run(mode, func(t *testing.T) { testTerminal(t, mode) })
	}
}

func testTerminal(t *testing.T, mode string) {
	e := newEnv(t, &Options{Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH")} }, TerminalSandbox: mode})
	killed := "[no output]\n[terminated: signal: killed]"
	if mode != SandboxOff && sandbox.Check().Available {
		killed = "[no output]\n[exit code 137]" // the shim reports a signal as a shell does
	}
	if err := os.Mkdir(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"echo", map[string]any{"command": "echo hello"}, "hello\n[exit code 0]", false},
		{"no output", map[string]any{"command": "true"}, "[no output]\n[exit code 0]", false},
		{"no final newline", map[string]any{"command": "printf abc"}, "abc\n[exit code 0]", false},
		{"stdout and stderr in order", map[string]any{"command": "echo a; echo b >&2; echo c"}, "a\nb\nc\n[exit code 0]", false},
		{"non-zero exit", map[string]any{"command": "echo failing; exit 3"}, "failing\n[exit code 3]", true},
		{"default cwd is the first root", map[string]any{"command": "pwd"}, e.root + "\n[exit code 0]", false},
		{"cwd", map[string]any{"command": "pwd", "cwd": "sub"}, e.root + "/sub\n[exit code 0]", false},
		{"stdin is empty", map[string]any{"command": "cat; echo done"}, "done\n[exit code 0]", false},
		{"killed by a signal", map[string]any{"command": "kill -9 $$"}, killed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.call(t, nameTerminal, tt.args)
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"cwd outside", map[string]any{"command": "pwd", "cwd": "/"}, outsideMsg},
		{"cwd missing", map[string]any{"command": "pwd", "cwd": "nope"}, `using working directory "nope": no such file or directory`},
		{"timeout too large", map[string]any{"command": "true", "timeout_seconds": 100000}, "timeout_seconds 100000 is out of range; use 1 to 600"},
		{"timeout negative", map[string]any{"command": "true", "timeout_seconds": -1}, "out of range"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, nameTerminal, tt.args, tt.want)
		})
	}
	write(t, filepath.Join(e.root, "f"), "")
	e.fail(t, nameTerminal, map[string]any{"command": "pwd", "cwd": "f"}, `cwd "f" is a regular file, not a directory`)
}

// gone reports whether process pid has exited (a zombie counts as exited).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command name in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone polls until pid has exited or the deadline passes.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline, not synchronisation
	}
}

// readPid polls for a pid the command wrote to file.
func readPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if s := strings.TrimSpace(string(b)); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// modes are the terminal sandbox modes the process tests run in: the
// unconfined path everywhere, the confined one where the kernel allows.
func modes() []string { return []string{SandboxOff, SandboxAuto} }

// waitNoMarker polls until no host process has marker in its command line.
func waitNoMarker(t *testing.T, marker string) { waitMarkerIs(t, marker, false) }

// waitMarker polls until a host process has marker in its command line.
func waitMarker(t *testing.T, marker string) { waitMarkerIs(t, marker, true) }

func waitMarkerIs(t *testing.T, marker string, running bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for (len(sandboxtest.ProcessesWith(marker)) > 0) != running {
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q: %v; want running %v", marker, sandboxtest.ProcessesWith(marker), running)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline, not synchronisation
	}
}

func TestTerminalTimeoutKillsProcessGroup(t *testing.T) {
	for i, mode := range modes() {
		t.Run(mode, func(t *testing.T) {
			marker := strconv.Itoa(100+i) + ".0101"
			// A confined start takes longer (the shim; more under -race):
			// the timeout must come after the echo.
			timeout := 300 * time.Millisecond
			if mode != SandboxOff {
				timeout = 3 * time.Second
			}
			e := newEnv(t, &Options{TerminalTimeout: timeout, TerminalSandbox: mode})
			start := time.Now()
			res := e.call(t, nameTerminal, map[string]any{"command": "echo before; sleep " + marker + " & wait"})
			if want := "before\n[timed out after " + timeout.String() + "; the command and its child processes were killed]"; !res.IsError || !strings.Contains(res.Text(), want) {
				t.Fatalf("got %v %q, want %q", res.IsError, res.Text(), want)
			}
			if d := time.Since(start); d > timeout+5*time.Second {
				t.Errorf("timeout took %v", d)
			}
			waitNoMarker(t, marker)
		})
	}
}

func TestTerminalKillsBackgroundChildren(t *testing.T) {
	for i, mode := range modes() {
		t.Run(mode, func(t *testing.T) {
			marker := strconv.Itoa(100+i) + ".0102"
			e := newEnv(t, &Options{TerminalSandbox: mode})
			start := time.Now()
			got := e.ok(t, nameTerminal, map[string]any{"command": "sleep " + marker + " & echo started"})
			if got != "started\n[exit code 0]" {
				t.Errorf("got %q", got)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the call waited %v for a background child", d)
			}
			waitNoMarker(t, marker)
		})
	}
}

func TestTerminalCancel(t *testing.T) {
	for i, mode := range modes() {
		t.Run(mode, func(t *testing.T) {
			marker := strconv.Itoa(100+i) + ".0103"
			e := newEnv(t, &Options{TerminalSandbox: mode})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				res *tools.Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := e.tools[nameTerminal].Call(ctx, &tools.CallRequest{
					Arguments: json.RawMessage(`{"command":"sleep ` + marker + ` & wait"}`),
				})
				done <- result{res, err}
			}()
			waitMarker(t, marker)
			start := time.Now()
			cancel()
			r := <-done
			if !errors.Is(r.err, context.Canceled) || r.res != nil {
				t.Errorf("Call after cancel = %v, %v; want nil, context.Canceled", r.res, r.err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("cancellation took %v", d)
			}
			waitNoMarker(t, marker)
		})
	}
}

func TestTerminalOutputCap(t *testing.T) {
	e := newEnv(t, &Options{TerminalMaxOutput: 40})
	got := e.ok(t, nameTerminal, map[string]any{"command": "seq 1 1000"})
	want := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n[... 3853 bytes of output omitted ...]\n96\n997\n998\n999\n1000\n[exit code 0]"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capped output mismatch (-want +got):\n%s", diff)
	}
}

func TestTerminalEnvironment(t *testing.T) {
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "AWS_REGION=eu-west-1",
		"OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=ghp", "GOPATH=/go", "NPM_CONFIG_CACHE=/c", "SHELL=() { :; }",
	}
	for _, mode := range modes() {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, &Options{Environ: func() []string { return environ }, TerminalInheritEnv: []string{"GOPATH", "NPM_*"}, TerminalSandbox: mode})
			got := e.ok(t, nameTerminal, map[string]any{"command": "env | grep -v '^PWD=' | grep -v '^SHLVL=' | grep -v '^_=' | grep -v '^PATH=' | grep -v '^TMPDIR=' | sort"})
			want := "GOPATH=/go\nHOME=/home/u\nLANG=C.UTF-8\nLC_ALL=C\nNPM_CONFIG_CACHE=/c\n[exit code 0]"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("environment mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTerminalEscapedProcessDoesNotHang(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	e := newEnv(t, &Options{TerminalSandbox: SandboxOff}) // the pid below must be a host pid
	start := time.Now()
	// setsid leaves the process group, so killing the group misses it, and
	// it keeps the output pipe open.
	got := e.ok(t, nameTerminal, map[string]any{"command": "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' & while [ ! -s escaped.pid ]; do :; done; echo started"})
	pid := readPid(t, filepath.Join(e.root, "escaped.pid"))
	defer func() {
		_ = syscall.Kill(pid, syscall.SIGKILL) // the test started it, so the test ends it
		waitGone(t, pid)
	}()
	if got != "started\n[exit code 0]" {
		t.Errorf("got %q", got)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the call waited %v for a process that left the group", d)
	}
}
