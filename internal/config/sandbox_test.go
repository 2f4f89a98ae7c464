package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSandboxForms(t *testing.T) {
	c := mustLoad(t, "s.yaml", `
sandbox: true
builtin:
  terminal: {sandbox: required, network: true, inheritEnv: [GOPATH, "NPM_*"], limits: {processes: 64}}
mcpServers:
  plain: {command: a}
  off: {command: a, sandbox: false}
  on: {command: a, sandbox: true, inheritEnv: [AWS_*]}
  custom:
    command: a
    sandbox:
      read: [./lib, ~/models]
      write: []
      network: true
      limits: {openFiles: 100, cpuTime: 30s, memory: 1073741824}
`, envMap{"HOME": "/home/u"})
	want := map[string]*Sandbox{
		"plain": nil,
		"off":   {},
		"on":    {Enabled: true},
		"custom": {
			Enabled: true, Read: []string{"/cfg/lib", "/home/u/models"}, Write: []string{}, Network: true,
			Limits: SandboxLimits{OpenFiles: 100, CPUTime: 30 * time.Second, Memory: 1 << 30},
		},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, c.MCPServers[name].Sandbox); diff != "" {
			t.Errorf("%s: sandbox mismatch (-want +got):\n%s", name, diff)
		}
	}
	if !c.Sandbox.Enabled {
		t.Error("the top-level default sandbox: true was not read")
	}
	if diff := cmp.Diff([]string{"AWS_*"}, c.MCPServers["on"].InheritEnv); diff != "" {
		t.Errorf("inheritEnv mismatch (-want +got):\n%s", diff)
	}
	want2 := Terminal{
		Timeout: DefaultCallTimeout, MaxOutput: DefaultResultBytes, Sandbox: SandboxRequired, Network: true,
		InheritEnv: []string{"GOPATH", "NPM_*"}, Limits: SandboxLimits{Processes: 64},
	}
	if diff := cmp.Diff(want2, c.Builtin.Terminal); diff != "" {
		t.Errorf("terminal mismatch (-want +got):\n%s", diff)
	}
	if d := Default(); d.Builtin.Terminal.Sandbox != SandboxAuto || d.Sandbox.Enabled {
		t.Errorf("defaults: terminal %q, servers %v; want auto and off", d.Builtin.Terminal.Sandbox, d.Sandbox.Enabled)
	}
}

func TestSandboxProblems(t *testing.T) {
	_, err := loadText(t, "s.yaml", `
sandbox: {read: [""], limits: {processes: -1}}
builtin:
  terminal: {sandbox: sometimes, inheritEnv: ["", "[x"], limits: {memory: -5}}
mcpServers:
  remote: {url: "https://example.com/mcp", sandbox: true, inheritEnv: [A]}
  typo: {command: a, sandbox: {write: [""], limits: {cpuTime: -1s}}}
`, nil)
	want := []string{
		`builtin.terminal.sandbox: unknown value "sometimes"; use auto (sandboxed where the kernel supports it), required or off`,
		`builtin.terminal.inheritEnv[0]: an empty glob matches nothing; give a variable name or a glob such as AWS_*`,
		`builtin.terminal.inheritEnv[1]: bad glob "[x": syntax error in pattern; globs use * ? and [a-z], with \ to escape`,
		`builtin.terminal.limits.memory: must not be negative (0 means the default, 8 GiB)`,
		`mcpServers.remote: sandbox and inheritEnv apply only to stdio servers (with command); remove them`,
		`mcpServers.typo.sandbox.write[0]: a path must not be empty`,
		`mcpServers.typo.sandbox.limits.cpuTime: must not be negative (0 means no limit)`,
		`sandbox.read[0]: a path must not be empty`,
		`sandbox.limits.processes: must not be negative (0 means the default, 1024)`,
	}
	got := problemsOf(err)
	for _, w := range want {
		if !contains(got, w) {
			t.Errorf("missing problem %q\nin %q", w, got)
		}
	}
	_, err = loadText(t, "s.yaml", `
mcpServers:
  bad: {command: a, sandbox: yes-please}
  typo: {command: a, sandbox: {reed: [/x]}}
`, nil)
	want = []string{
		`mcpServers.bad.sandbox: expected true, false or a mapping with read, write, network, limits; got the string "yes-please" (line 3)`,
		`mcpServers.typo.sandbox.reed: unknown key; did you mean read? (line 4)`,
	}
	if diff := cmp.Diff(want, problemsOf(err)); diff != "" {
		t.Errorf("decode problems mismatch (-want +got):\n%s", diff)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
