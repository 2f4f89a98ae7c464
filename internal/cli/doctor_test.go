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
	dir := project(t, "", good, noisy, missing)

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
	if s := sections["noisy"]; !strings.Contains(s, "FAIL") || !strings.Contains(s, "stdout") {
		t.Errorf("server writing to stdout: section lacks a stdout failure:\n%s", s)
	}

	r = run(t, dir, nil, "doctor", "--server", "good")
	if r.code != 0 || !strings.Contains(r.stdout, "all checks passed") {
		t.Errorf("doctor --server good: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
