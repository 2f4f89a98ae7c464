package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

func TestDoctor(t *testing.T) {
	missing := mcphost.ServerConfig{Name: "missing", Command: "no-such-command-sb"}
	good := mcptest.StdioServer(t, "good")
	noisy := mcptest.StdioServer(t, "noisy", mcptest.ModeNormal, mcptest.ModeGarbageStart)
	dir := project(t, "mcpRoots: [/srv/shared]\n", good, noisy, missing)

	r := run(t, dir, nil, "doctor")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	sections := map[string]string{}
	for _, sec := range strings.Split(r.stdout, "\n\n") {
		name, _, _ := strings.Cut(sec, " ")
		sections[name] = sec
	}
	if s := sections["good"]; !strings.Contains(s, "ok") || strings.Contains(s, "FAIL") || !strings.Contains(s, "mcptest 1.2.3") {
		t.Errorf("good server section:\n%s", s)
	}
	if s := sections["missing"]; !strings.Contains(s, "FAIL") || !strings.Contains(s, "fix:") {
		t.Errorf("missing command section lacks a failure with a fix:\n%s", s)
	}
	if s := sections["noisy"]; strings.Contains(s, "FAIL") || !strings.Contains(s, "[warn]") ||
		!strings.Contains(s, "1 lines that are not JSON-RPC were skipped") || !strings.Contains(s, "[stdout] Starting test server") {
		t.Errorf("server writing a banner to stdout: section lacks the warning, the count or the line:\n%s", s)
	}
	if s := sections["good"]; !strings.Contains(s, "roots offered: file:///srv/shared") {
		t.Errorf("good server section does not show the roots it was offered:\n%s", s)
	}

	r = run(t, dir, nil, "doctor", "--server", "good")
	if r.code != 0 || !strings.Contains(r.stdout, "all checks passed") {
		t.Errorf("doctor --server good: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
