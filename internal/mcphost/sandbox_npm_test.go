//go:build linux

package mcphost_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// hostileSetup is a sandboxed hostile server with a root that holds a data
// directory and a config file, as Switchboard's defaults put them, and
// secrets outside it.
type hostileSetup struct {
	root, outside, data, config string
	node                        string // Node 22 from testdata/npm
	sc                          mcphost.ServerConfig
}

func newHostile(t *testing.T) *hostileSetup {
	t.Helper()
	sandboxtest.Require(t)
	p := requireNPM(t, "@modelcontextprotocol/sdk", "zod")
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	nm, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileSetup{root: t.TempDir(), outside: t.TempDir(), node: p.node}
	h.data, h.config = filepath.Join(h.root, ".switchboard"), filepath.Join(h.root, "switchboard.yaml")
	writeFile(t, filepath.Join(h.outside, "secret"), "s3cret-outside")
	writeFile(t, filepath.Join(h.data, "oauth", "github.json"), `{"access_token":"gho_tok3n"}`)
	writeFile(t, h.config, "models: {x: {apiKey: sk-c0nfig}}")
	script := filepath.Join(mod, "testdata", "npm", "hostile", "server.mjs")
	h.sc = mcphost.ServerConfig{
		Name:       "hostile",
		Command:    p.node,
		Args:       []string{script},
		Dir:        h.root,
		Env:        map[string]string{"FROM_CONFIG": "1"},
		InheritEnv: []string{"SANDBOX_TEST_*"},
		Sandbox: &sandbox.Policy{
			Confine: true,
			Read:    append(sandbox.SystemRead(), filepath.Dir(script), nm, h.root),
			Write:   []string{h.root},
			Hide:    append(sandbox.SystemHide(), h.data, h.config),
			Limits:  sandbox.Limits{Processes: 64, OpenFiles: 1024, Memory: 8 << 30},
		},
	}
	return h
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxedServerEscapes runs the hostile npm server in the sandbox and
// calls each of its escape tools.
func TestSandboxedServerEscapes(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-env1r0n")
	t.Setenv("SANDBOX_TEST_INHERIT", "yes")
	h := newHostile(t)
	addr, accepted := sandboxtest.Listen(t, "tcp4", "127.0.0.1:0")
	host, port, _ := net.SplitHostPort(addr)
	sock, sockAccepted := listenUnix(t)
	portN, _ := strconv.Atoi(port)
	const marker = "987653"

	p := startPool(t, []mcphost.ServerConfig{h.sc}, nil)
	waitState(t, p, "hostile", mcphost.StateReady)
	if st := statusOf(t, p, "hostile"); !strings.HasPrefix(st.Sandbox, "read system") || !strings.Contains(st.Sandbox, "network off") {
		t.Errorf("status shows sandbox %q", st.Sandbox)
	}

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string   // prefix of the outcome: "ok:" or "denied:"
		secrets []string // none may appear
	}{
		{"read outside the allowed paths", "read_file", map[string]any{"path": filepath.Join(h.outside, "secret")}, "denied:", []string{"s3cret"}},
		{"read /etc/shadow", "read_file", map[string]any{"path": "/etc/shadow"}, "ok:", []string{"root:"}},
		{"list outside", "list_dir", map[string]any{"path": h.outside}, "denied:", []string{"secret"}},
		{"read the data directory", "read_file", map[string]any{"path": filepath.Join(h.data, "oauth", "github.json")}, "denied:", []string{"gho_"}},
		{"list the data directory", "list_dir", map[string]any{"path": h.data}, "ok:", []string{"oauth"}},
		{"read the config file", "read_file", map[string]any{"path": h.config}, "ok:", []string{"sk-c0nfig"}},
		{"read switchboard's environ", "read_environ", map[string]any{"pid": os.Getpid()}, "denied:", []string{"sk-env1r0n"}},
		{"read the parent's environ", "read_environ", map[string]any{"pid": 0}, "", []string{"sk-env1r0n", "OPENAI"}},
		{"see other processes", "processes", nil, "ok:", []string{"," + strconv.Itoa(os.Getpid()) + ","}},
		{"write outside the roots", "write_file", map[string]any{"path": filepath.Join(h.outside, "new"), "content": "x"}, "denied:", nil},
		{"write into /usr", "write_file", map[string]any{"path": "/usr/evil", "content": "x"}, "denied:", nil},
		{"connect to a listener on 127.0.0.1", "connect", map[string]any{"host": host, "port": portN}, "denied:", nil},
		{"connect to a unix socket in /run", "connect_unix", map[string]any{"path": sock}, "denied:", nil},
		{"fork without bound", "fork_bomb", map[string]any{"count": 1000, "marker": marker}, "denied:", []string{"started 1000"}},
		{"start a process that outlives the server", "spawn_detached", map[string]any{"marker": marker}, "ok:", nil},
		{"read inside the roots", "read_file", map[string]any{"path": filepath.Join(h.root, "switchboard.yaml")}, "ok:", nil},
		{"write inside the roots", "write_file", map[string]any{"path": filepath.Join(h.root, "made.txt"), "content": "made"}, "ok:", nil},
		{"ordinary programs", "run", map[string]any{"command": "ls && grep -c made made.txt && sh -c 'echo hi' && " + h.node + " -e 'console.log(1)'"}, "ok:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, findTool(t, p, tt.tool), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			out := res.Text()
			if !strings.HasPrefix(out, tt.want) {
				t.Errorf("outcome %q, want %q...", out, tt.want)
			}
			for _, s := range tt.secrets {
				if strings.Contains(out, s) {
					t.Errorf("outcome shows %q: %s", s, out)
				}
			}
			if tt.tool == "fork_bomb" {
				var n int
				if _, err := fmt.Sscanf(out, "denied: started %d", &n); err != nil || n >= 64+300 {
					t.Errorf("the server started %d processes (%q); want fewer than 64 (64+300 for root)", n, out)
				}
			}
			t.Logf("%s", firstLine(out))
		})
	}
	res, _ := call(t, findTool(t, p, "env"), nil)
	names := strings.Split(strings.TrimPrefix(res.Text(), "ok: "), ",")
	allowed := "FROM_CONFIG HOME LANG LOGNAME PATH SANDBOX_TEST_INHERIT SHELL TERM TMPDIR TZ USER"
	for _, n := range names {
		if !strings.Contains(" "+allowed+" ", " "+n+" ") && !strings.HasPrefix(n, "LC_") {
			t.Errorf("the server got variable %s; want only the minimal base, inherited and configured ones", n)
		}
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "FROM_CONFIG") || !strings.Contains(got, "SANDBOX_TEST_INHERIT") || !strings.Contains(got, "PATH") {
		t.Errorf("the server's environment %s lacks a configured, inherited or base variable", got)
	}
	if accepted() || sockAccepted() {
		t.Error("a listener accepted a connection from the sandbox")
	}
	if _, err := os.Stat(filepath.Join(h.outside, "new")); err == nil {
		t.Error("the server wrote outside the roots")
	}
	if b, _ := os.ReadFile(filepath.Join(h.root, "made.txt")); string(b) != "made" {
		t.Errorf("the file written inside the roots holds %q", b)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if left := sandboxtest.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("processes the server started outlived it: %v", left)
	}
}

// TestSandboxedServerStartFailure checks that a server which the sandbox
// stops from starting fails with an error naming what was refused.
func TestSandboxedServerStartFailure(t *testing.T) {
	h := newHostile(t)
	// Outside /tmp, which the sandbox replaces: there the kernel refuses
	// with EACCES instead of the path being absent.
	outside, err := os.MkdirTemp("/var/tmp", "switchboard-sandbox-test-") //nolint:usetesting // see above
	if err != nil {
		t.Skipf("no directory outside /tmp to test with: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(outside) })
	needed := filepath.Join(outside, "model.bin")
	writeFile(t, needed, "weights")
	h.sc.Args = append(h.sc.Args, "--read-at-start", needed)
	opts := testOptions()
	opts.MaxRestarts = 1
	p := startPool(t, []mcphost.ServerConfig{h.sc}, opts)
	st := waitState(t, p, "hostile", mcphost.StateFailed)
	want := "the sandbox refused access to " + needed
	if !strings.Contains(st.LastError, want) || !strings.Contains(st.LastError, "mcpServers.hostile.sandbox") {
		t.Errorf("last error %q; want it to contain %q and the config key", st.LastError, want)
	}
	// The fix names the entry to add, the refused file's directory.
	if fix := "to allow it: add " + outside + " to mcpServers.hostile.sandbox.read"; !strings.Contains(st.LastError, fix) {
		t.Errorf("last error %q; want it to say %q", st.LastError, fix)
	}

	r := mcphost.Diagnose(t.Context(), h.sc, testOptions())
	var probe mcphost.Step
	for _, s := range r.Steps {
		if strings.HasPrefix(s.Name, "process answers") {
			probe = s
		}
	}
	if !strings.Contains(probe.Err, want) {
		t.Errorf("doctor's probe error %q; want it to contain %q", probe.Err, want)
	}
	if !strings.Contains(strings.Join(r.Env, ","), "FROM_CONFIG") || strings.Contains(strings.Join(r.Env, ","), "=") {
		t.Errorf("doctor's env names %v", r.Env)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// listenUnix listens on a unix socket in /run, where the Docker and D-Bus
// sockets live, and reports whether it accepted; it skips where /run is
// not writable (CI runs as root, so it is).
func listenUnix(t *testing.T) (string, func() bool) {
	t.Helper()
	path := filepath.Join("/run", "switchboard-sandbox-test-"+strconv.Itoa(os.Getpid())+".sock")
	if f, err := os.Create(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot write in /run: %v", err)
		}
		t.Skipf("cannot write in /run: %v", err)
	} else {
		_ = f.Close()
		_ = os.Remove(path)
	}
	return sandboxtest.Listen(t, "unix", path)
}
