package sandbox_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

func TestExplain(t *testing.T) {
	const paths = " (add it, or a directory above it, to the sandbox's read or write paths)"
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"nothing", []string{"listening on stdio", "ready"}, ""},
		{"node open", []string{"node:fs:573", "Error: EACCES: permission denied, open '/home/u/.npmrc'", "    at Object.openSync"}, "the sandbox refused access to /home/u/.npmrc" + paths},
		{"python", []string{"PermissionError: [Errno 13] Permission denied: '/srv/data.db'"}, "the sandbox refused access to /srv/data.db" + paths},
		{"coreutils", []string{"cat: /etc/x: Permission denied"}, "the sandbox refused access to /etc/x" + paths},
		{"node connect", []string{"Error: connect EACCES 127.0.0.1:5432"}, "the sandbox has no network and refused a connection to 127.0.0.1:5432 (set network: true to allow it)"},
		{"go dial", []string{"dial tcp 10.0.0.1:443: connect: network is unreachable"}, "the sandbox has no network and refused a connection to 10.0.0.1:443 (set network: true to allow it)"},
		{"dns", []string{"getaddrinfo EAI_AGAIN registry.npmjs.org"}, "the sandbox has no network and refused a connection to registry.npmjs.org (set network: true to allow it)"},
		{"missing", []string{"Error: ENOENT: no such file or directory, open '/tmp/x/secret'"}, "/tmp/x/secret does not exist inside the sandbox (if it exists outside, add it, or a directory above it, to the sandbox's read paths)"},
		{"the shim", []string{"x", "switchboard sandbox: cannot run /opt/x: no such file or directory (inside...)"}, "cannot run /opt/x: no such file or directory (inside...)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sandbox.Explain(tt.lines); got != tt.want {
				t.Errorf("Explain = %q, want %q", got, tt.want)
			}
		})
	}
}
