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

func TestRefused(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"the shim could not run the command", []string{"switchboard sandbox: cannot run /opt/x/bin/x: permission denied (the sandbox ...)"}, "/opt/x/bin/x"},
		{"node refused a read", []string{"Error: EACCES: permission denied, open '/var/models/m.bin'"}, "/var/models/m.bin"},
		{"python refused a read", []string{"PermissionError: [Errno 13] Permission denied: '/srv/data/x.csv'"}, "/srv/data/x.csv"},
		{"a shell refused", []string{"cat: /srv/secret: Permission denied"}, "/srv/secret"},
		{"a path left out", []string{"Error: ENOENT: no such file or directory, open '/opt/cfg.json'"}, "/opt/cfg.json"},
		{"a connection is no path", []string{"connect EACCES 127.0.0.1:80"}, ""},
		{"nothing refused", []string{"listening", "ready"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sandbox.Refused(tt.lines); got != tt.want {
				t.Errorf("Refused = %q, want %q", got, tt.want)
			}
		})
	}
}
