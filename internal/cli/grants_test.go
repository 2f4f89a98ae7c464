package cli

import (
	"strings"
	"testing"
)

// TestGrantsCmd checks the command's faces; listing and revoking real
// grants is internal/app's TestGrants.
func TestGrantsCmd(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, nil, "users", "add", "alice"); r.code != 0 {
		t.Fatalf("users add: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "grants", "list", "alice"); r.code != 0 || !strings.HasPrefix(r.stdout, "ID") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("grants list of a user without grants: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, nil, "grants", "list", "nobody"); r.code != 2 || !strings.Contains(r.stderr, "no user named") {
		t.Errorf("grants list of an unknown user: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "grants", "revoke", "alice", "nope"); r.code != 2 || !strings.Contains(r.stderr, "no live grant") {
		t.Errorf("grants revoke of an unknown grant: exit %d, stderr %q", r.code, r.stderr)
	}
}
