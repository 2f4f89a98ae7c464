//go:build linux

package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// sandboxEnv builds the tools with a confined terminal whose root holds a
// data directory and a config file, as Switchboard's defaults put them
// (./.switchboard and ./switchboard.yaml), plus a directory outside.
type sandboxEnv struct {
	*env
	outside, data, config string
}

func newSandboxEnv(t *testing.T, network bool) *sandboxEnv {
	t.Helper()
	sandboxtest.Require(t)
	root := t.TempDir()
	se := &sandboxEnv{outside: t.TempDir(), data: filepath.Join(root, ".switchboard"), config: filepath.Join(root, "switchboard.yaml")}
	write(t, filepath.Join(se.outside, "secret"), "s3cret-outside")
	if err := os.MkdirAll(filepath.Join(se.data, "oauth"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(se.data, "oauth", "github.json"), `{"access_token":"gho_tok3n"}`)
	write(t, se.config, "models: {x: {apiKey: sk-c0nfig}}")
	se.env = newEnvAt(t, root, &Options{
		TerminalSandbox: SandboxRequired,
		Environ: func() []string {
			return []string{"PATH=" + os.Getenv("PATH"), "HOME=/root", "OPENAI_API_KEY=sk-env1r0n"}
		},
		TerminalPolicy: sandbox.Policy{
			Hide:    []string{se.data, se.config},
			Network: network,
			Limits:  sandbox.Limits{Processes: 64, OpenFiles: 256},
		},
	})
	return se
}

// TestTerminalSandboxEscapes tries each way out of the sandbox through the
// terminal tool, as a model would.
func TestTerminalSandboxEscapes(t *testing.T) {
	se := newSandboxEnv(t, false)
	addr, accepted := sandboxtest.Listen(t, "tcp4", "127.0.0.1:0")
	host, port, _ := strings.Cut(addr, ":")
	self := strconv.Itoa(os.Getpid())

	tests := []struct {
		name    string
		command string
		secrets []string // none may appear in the output
	}{
		{"read outside the roots", "cat " + filepath.Join(se.outside, "secret"), []string{"s3cret"}},
		{"list outside the roots", "ls -la " + se.outside, []string{"secret"}},
		{"read the home directory", "ls -A /root && cat /root/.bashrc", nil},
		{"read the data directory", "cat .switchboard/oauth/github.json; cat " + filepath.Join(se.data, "oauth", "github.json"), []string{"gho_"}},
		{"list the data directory", "ls -A .switchboard; find .switchboard -type f | grep -q . ", []string{"oauth"}},
		{"read the config file", "grep -r apiKey . ; cat switchboard.yaml; test -s switchboard.yaml", []string{"sk-c0nfig"}},
		{"read switchboard's environment", "cat /proc/" + self + "/environ; for p in /proc/[0-9]*; do cat $p/environ; done | tr '\\0' '\\n' | grep OPENAI", []string{"sk-env1r0n"}},
		{"see switchboard's process", "ls /proc/" + self, nil},
		{"write outside the roots", "echo x > " + filepath.Join(se.outside, "new"), nil},
		{"write into /etc", "echo x >> /etc/hosts", nil},
		{"connect to a listener on 127.0.0.1", "exec bash -c 'echo hi > /dev/tcp/" + host + "/" + port + "'", nil},
		{"connect with node", "node -e \"require('net').connect(" + port + ", '" + host + "').on('connect', () => console.log('connected')).on('error', e => { console.log(e.code); process.exit(1) })\"", []string{"connected"}},
		{"fork without bound", `perl -e '$| = 1; for (1..1000) { my $p = fork; last unless defined $p; if (!$p) { sleep 100; exit } $n++ } print "forked $n\n"; exit($n >= 1000 ? 0 : 1)'`, []string{"forked 1000"}},
		{"remount the data directory", "umount .switchboard", nil},
		{"replace the config file", "rm -f switchboard.yaml && echo x > switchboard.yaml", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// An attempt whose program is missing would fail for the
			// wrong reason.
			for _, prog := range []string{"bash", "node", "perl"} {
				if strings.Contains(tt.command, prog+" ") {
					if _, err := exec.LookPath(prog); err != nil {
						t.Skipf("%s is not installed", prog)
					}
				}
			}
			res := se.call(t, nameTerminal, map[string]any{"command": tt.command})
			if !res.IsError {
				t.Errorf("the command succeeded:\n%s", res.Text())
			}
			for _, s := range tt.secrets {
				if strings.Contains(res.Text(), s) {
					t.Errorf("output shows %q:\n%s", s, res.Text())
				}
			}
		})
	}
	if accepted() {
		t.Error("the listener on 127.0.0.1 accepted a connection from the sandbox")
	}
	if _, err := os.Stat(filepath.Join(se.outside, "new")); err == nil {
		t.Error("a file was written outside the roots")
	}
	if b, err := os.ReadFile(se.config); err != nil || !strings.Contains(string(b), "sk-c0nfig") {
		t.Errorf("the config file changed: %q, %v", b, err)
	}
}

// TestTerminalSandboxAllows checks that ordinary work inside the roots
// still works under the sandbox.
func TestTerminalSandboxAllows(t *testing.T) {
	se := newSandboxEnv(t, false)
	if err := os.Mkdir(filepath.Join(se.root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(se.root, "src", "a.txt"), "needle\n")
	tests := []struct{ name, command, want string }{
		{"read inside the roots", "cat src/a.txt", "needle\n"},
		{"write, move and delete inside the roots", "echo hi > b && mkdir -p d && mv b d/c && cat d/c && rm -r d", "hi\n"},
		{"ordinary programs", "ls src && grep -rn needle src | cut -d: -f1,2 && wc -l < src/a.txt", "a.txt\nsrc/a.txt:1\n1\n"},
		{"a pipeline and a subshell", "(echo b; echo a) | sort | tr -d '\\n'; echo", "ab\n"},
		{"node", "node -e 'console.log(6*7)'", "42\n"},
		{"temporary files", "t=$(mktemp) && echo tmp > $t && cat $t", "tmp\n"},
		{"the environment is minimal", "env | grep -c OPENAI || true", "0\n"},
	}
	if _, err := exec.LookPath("node"); err != nil {
		tests = tests[:4]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := se.ok(t, nameTerminal, map[string]any{"command": tt.command})
			if want := tt.want + "[exit code 0]"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	if info := se.tools[nameTerminal].Info(); !strings.Contains(info.Description, "Sandboxed by the kernel") {
		t.Errorf("the description does not say the terminal is sandboxed:\n%s", info.Description)
	}
}

func TestTerminalSandboxNetworkOn(t *testing.T) {
	t.Parallel()
	se := newSandboxEnv(t, true)
	addr, accepted := sandboxtest.Listen(t, "tcp4", "127.0.0.1:0")
	host, port, _ := strings.Cut(addr, ":")
	se.ok(t, nameTerminal, map[string]any{"command": "exec bash -c 'echo hi > /dev/tcp/" + host + "/" + port + "'"})
	if !accepted() {
		t.Error("with network on, the listener saw no connection")
	}
}

// TestTerminalWithoutKernelSupport checks what the terminal says and does
// on a system that cannot sandbox, for each mode.
func TestTerminalWithoutKernelSupport(t *testing.T) {
	rs, err := newRoots([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	none := sandbox.Support{Reason: "the kernel has no Landlock"}
	for _, tt := range []struct {
		mode, about, refuse string
	}{
		{SandboxAuto, "Not sandboxed: the kernel has no Landlock.", ""},
		{SandboxOff, "Not sandboxed (builtin.terminal.sandbox is off)", ""},
		{SandboxRequired, "Unavailable: the sandbox is required", "the terminal sandbox is required (builtin.terminal.sandbox: required) but this system cannot provide it: the kernel has no Landlock"},
	} {
		c := newConfinement(rs, &Options{TerminalSandbox: tt.mode}, none)
		if c.policy != nil || !strings.HasPrefix(c.about, tt.about) || c.refuse != tt.refuse {
			t.Errorf("%s: policy %v, about %q, refuse %q; want no policy, %q..., %q", tt.mode, c.policy, c.about, c.refuse, tt.about, tt.refuse)
		}
	}
	c := newConfinement(rs, &Options{TerminalSandbox: SandboxRequired}, none)
	tm := &terminal{rs: rs, timeout: time.Second, maxTime: time.Second, maxOutput: 100, environ: os.Environ, conf: c}
	res, err := tm.run(t.Context(), terminalArgs{Command: "echo ran"})
	if err != nil || !res.IsError || strings.Contains(res.Text(), "ran") || !strings.Contains(res.Text(), "sandbox is required") {
		t.Errorf("a required sandbox that is missing: %v, %q; want the call refused", err, res.Text())
	}
}
