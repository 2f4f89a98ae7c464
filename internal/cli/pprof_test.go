package cli

import (
	"strings"
	"testing"
)

// TestServeRefusesProfilesOffLoopback: --pprof on an address others can
// reach is a usage error that says why, before anything is served.
func TestServeRefusesProfilesOffLoopback(t *testing.T) {
	r := run(t, t.TempDir(), nil, "serve", "--addr", "127.0.0.1:0", "--pprof", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.stderr, "not a loopback address") || !strings.Contains(r.stderr, "127.0.0.1") {
		t.Errorf("exit %d, stderr %q; want 2, the reason and a loopback example", r.code, r.stderr)
	}
}
