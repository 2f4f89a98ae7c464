package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestServersAddReachesRunningServe adds a stdio server with the CLI
// beside a running serve on the same SQLite database (another App, as
// another process would be): serve starts it without a restart, the CLI
// never shows its secret, and disable and rm take it away again.
func TestServersAddReachesRunningServe(t *testing.T) {
	file := mcptest.StdioServer(t, "filed")
	dir := project(t, "", file)
	a := clitest.App(t, dir)
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	clitest.Serve(t, a)
	ready := func(name string) bool {
		for _, s := range a.Servers() {
			if s.Name == name && s.State == "ready" && s.Tools > 0 {
				return true
			}
		}
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const secret = "cli-secret-value-98765"
	add := []string{
		"servers", "add", "added", "--command", exe, "--arg", "-test.run=^$",
		"--env", mcptest.EnvMode + "=" + string(mcptest.ModeNormal),
		"--env", mcptest.EnvEvents + "=" + filepath.Join(t.TempDir(), "events"),
		"--env", mcptest.EnvID + "=added", "--env", "API_TOKEN=" + secret,
	}
	if r := run(t, dir, nil, add...); r.code != 0 {
		t.Fatalf("servers add: exit %d\n%s", r.code, r.stderr)
	}
	if !mcptest.Poll(10*time.Second, func() bool { return ready("added") }) {
		t.Fatalf("serve did not start the added server: %+v", a.Servers())
	}
	r := run(t, dir, nil, "servers", "entries", "--json")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, secret) || !strings.Contains(r.stdout, `"API_TOKEN": "(set)"`) ||
		!strings.Contains(r.stdout, "filed") || !strings.Contains(r.stdout, "runtime") {
		t.Errorf("servers entries: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, nil, "servers", "add", "filed", "--command", exe); r.code != 2 || !strings.Contains(r.stderr, "change it there") {
		t.Errorf("adding the file's name: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "servers", "add", "bad", "--url", "ftp://x", "--command", "y"); r.code != 2 || !strings.Contains(r.stderr, "not both") {
		t.Errorf("adding an invalid entry: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "servers", "disable", "added"); r.code != 0 {
		t.Fatalf("servers disable: exit %d\n%s", r.code, r.stderr)
	}
	gone := func() bool {
		for _, s := range a.Servers() {
			if s.Name == "added" && s.State != "disabled" {
				return false
			}
		}
		return true
	}
	if !mcptest.Poll(10*time.Second, gone) {
		t.Errorf("the disabled server still runs: %+v", a.Servers())
	}
	if r := run(t, dir, nil, "servers", "rm", "added"); r.code != 0 {
		t.Errorf("servers rm: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, nil, "servers", "rm", "added"); r.code != 2 {
		t.Errorf("servers rm twice: exit %d, want 2\n%s", r.code, r.stderr)
	}
}
