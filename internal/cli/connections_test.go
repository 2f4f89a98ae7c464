package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConnections: the operator connects a user's credential from stdin
// (never argv), lists it without the value, and removes it; a server that
// is not per-user, an unknown user and an empty value are refused.
func TestConnections(t *testing.T) {
	dir := t.TempDir()
	cfg := "mcpServers:\n  gh: {url: \"https://example.com/mcp\", credentials: perUser}\n"
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, nil, "users", "add", "ann"); r.code != 0 {
		t.Fatalf("users add: %d %s", r.code, r.stderr)
	}
	const secret = "ann-secret-token-42"
	if r := run(t, dir, map[string]string{"_stdin": secret + "\n"}, "connections", "set", "gh", "--user", "ann"); r.code != 0 || strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("connections set: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r := run(t, dir, nil, "connections", "--user", "ann")
	if r.code != 0 || !strings.Contains(r.stdout, "gh") || !strings.Contains(r.stdout, "since") || strings.Contains(r.stdout, secret) {
		t.Errorf("connections: %d %q %q", r.code, r.stdout, r.stderr)
	}
	for _, bad := range []struct {
		stdin string
		args  []string
	}{
		{"x\n", []string{"connections", "set", "nosuch", "--user", "ann"}},
		{"x\n", []string{"connections", "set", "gh", "--user", "nobody"}},
		{"", []string{"connections", "set", "gh", "--user", "ann"}},
	} {
		if r := run(t, dir, map[string]string{"_stdin": bad.stdin}, bad.args...); r.code != 2 {
			t.Errorf("%v: %d %q, want a usage error", bad.args, r.code, r.stderr)
		}
	}
	if r := run(t, dir, nil, "connections", "rm", "gh", "--user", "ann"); r.code != 0 {
		t.Errorf("connections rm: %d %q", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "connections", "--user", "ann"); !strings.Contains(r.stdout, " no") {
		t.Errorf("after rm: %q", r.stdout)
	}
}
