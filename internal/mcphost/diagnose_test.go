package mcphost_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

func TestDiagnose(t *testing.T) {
	t.Parallel()
	httpSC, _ := mcptest.HTTPServer(t, "remote", nil)
	missing := mcphost.ServerConfig{Name: "missing", Command: "switchboard-no-such-command"}
	tests := []struct {
		name     string
		sc       mcphost.ServerConfig
		failStep string // "" = all OK
		errHas   string
		hintHas  string
		stderr   string
		warnHas  string // a step passes with this warning
	}{
		{name: "healthy stdio", sc: mcptest.StdioServer(t, "ok")},
		{name: "healthy http", sc: httpSC},
		{name: "no command or url", sc: mcphost.ServerConfig{Name: "empty"}, failStep: "configuration", errHas: "no url and no command", hintHas: "set url"},
		{name: "command not on PATH", sc: missing, failStep: "command on PATH", errHas: "not found", hintHas: "install"},
		{
			name: "banner on stdout", sc: mcptest.StdioServer(t, "g", mcptest.ModeNormal, mcptest.ModeGarbageStart),
			warnHas: "Starting test server", hintHas: "stderr", stderr: "[stdout] Starting test server on stdio... ready!",
		},
		{
			name: "exits at start", sc: mcptest.StdioServer(t, "x", mcptest.ModeExit),
			failStep: "process answers initialize", errHas: "stdout closed", stderr: "fatal: MCPTEST_API_KEY is not set",
		},
		{name: "unreachable url", sc: mcphost.ServerConfig{Name: "down", URL: "http://127.0.0.1:1/mcp"}, failStep: "server reachable", hintHas: "port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions()
			opts.ConnectTimeout = 5 * time.Second
			r := mcphost.Diagnose(t.Context(), tt.sc, opts)
			failed := slices.IndexFunc(r.Steps, func(s mcphost.Step) bool { return !s.OK && !s.Skipped })
			if tt.failStep == "" {
				if failed >= 0 || !r.OK {
					t.Fatalf("step %+v failed; report %+v", r.Steps[failed], r)
				}
				if !slices.Contains(r.Tools, "echo") || r.ServerName != "mcptest" || r.ProtocolVersion == "" {
					t.Errorf("report lacks server details: %+v", r)
				}
				warned := slices.IndexFunc(r.Steps, func(s mcphost.Step) bool { return s.Warning != "" })
				switch {
				case tt.warnHas == "" && warned >= 0:
					t.Errorf("unexpected warning: %+v", r.Steps[warned])
				case tt.warnHas != "" && (warned < 0 || !strings.Contains(r.Steps[warned].Warning, tt.warnHas) || !strings.Contains(r.Steps[warned].Hint, tt.hintHas)):
					t.Errorf("steps %+v; want a warning containing %q with a hint containing %q", r.Steps, tt.warnHas, tt.hintHas)
				case tt.warnHas != "" && r.NonProtocolLines == 0:
					t.Errorf("NonProtocolLines = 0 with a banner on stdout")
				}
				if tt.stderr != "" && !slices.Contains(r.Stderr, tt.stderr) {
					t.Errorf("stderr %q lacks %q", r.Stderr, tt.stderr)
				}
				return
			}
			if failed < 0 || r.OK {
				t.Fatalf("no step failed; want %q to fail. steps %+v", tt.failStep, r.Steps)
			}
			st := r.Steps[failed]
			if st.Name != tt.failStep || !strings.Contains(st.Err, tt.errHas) || !strings.Contains(st.Hint, tt.hintHas) {
				t.Errorf("failed step %+v; want %q with error containing %q and hint containing %q", st, tt.failStep, tt.errHas, tt.hintHas)
			}
			for _, later := range r.Steps[failed+1:] {
				if !later.Skipped {
					t.Errorf("step %q after the failure ran: %+v", later.Name, later)
				}
			}
			if tt.stderr != "" && !slices.Contains(r.Stderr, tt.stderr) {
				t.Errorf("stderr %q lacks %q", r.Stderr, tt.stderr)
			}
			for _, pid := range mcptest.PIDs(tt.sc) {
				if !mcptest.Poll(5*time.Second, func() bool { return !alive(t, pid) }) {
					t.Errorf("Diagnose left process %d running", pid)
				}
			}
		})
	}
}

// TestDiagnoseRoots checks that doctor reports the roots a server was
// offered, and that it asked for them.
func TestDiagnoseRoots(t *testing.T) {
	t.Parallel()
	none := mcphost.Diagnose(t.Context(), mcptest.StdioServer(t, "none"), testOptions())
	if len(none.Roots) != 0 || none.RootsRequests != 0 {
		t.Errorf("no roots configured: report says %q offered, %d requests", none.Roots, none.RootsRequests)
	}
	sc := mcptest.StdioServer(t, "some")
	dir := t.TempDir()
	sc.Roots = []string{dir}
	r := mcphost.Diagnose(t.Context(), sc, testOptions())
	if len(r.Roots) != 1 || r.Roots[0] != "file://"+dir {
		t.Errorf("roots = %q, want file://%s", r.Roots, dir)
	}
}
