package config

import (
	"strings"
	"testing"
)

// TestLoadListsDecodeAndValidationProblems: a file with an unknown key and
// invalid values elsewhere gets every problem in one answer, not the
// unknown key first and the rest after the next save; a validation
// problem that only repeats a decode problem is left out.
func TestLoadListsDecodeAndValidationProblems(t *testing.T) {
	_, err := loadText(t, "switchboard.yaml", "notAKey: 1\napprovals: {mode: sometimes}\nmcpServers:\n  w: {serverUrl: 'http://x'}\n", nil)
	got := problemsOf(err)
	want := []string{"notAKey: unknown key", "mcpServers.w.serverUrl: unknown key", `approvals.mode: unknown value "sometimes"`}
	if len(got) != len(want) {
		t.Fatalf("problems: %q; want %d, starting %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d: %q; want it to start %q", i, got[i], w)
		}
	}
}
