package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// Every sandbox a stdio server starts in, and the terminal's, asks the
// app's protected set where Switchboard's files are at that start: after
// the data directory's parent is renamed, the new place is hidden.
func TestSandboxesAskWhereProtectedFilesAreNow(t *testing.T) {
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Data = filepath.Join(proj, "state", "data")
	cfg.Source = filepath.Join(proj, "sb.yaml")
	cfg.TrustDirs = []string{filepath.Join(proj, "trust")}
	cfg.Builtin.Roots = []string{proj}
	cfg.MCPServers = map[string]config.MCPServer{
		"boxed": {Command: "x", Sandbox: &config.Sandbox{Enabled: true, Write: []string{filepath.Join(proj, "out")}}},
		"open":  {Command: "y"},
	}
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	if err := os.Rename(filepath.Join(proj, "state"), filepath.Join(proj, "moved")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(proj, "moved", "data")
	for _, sc := range a.protectServers(mcpServers(cfg, nil)) {
		switch {
		case sc.Name == "open" && sc.Sandbox != nil:
			t.Errorf("the unconfined server got a sandbox: %+v", sc.Sandbox)
		case sc.Name == "boxed" && (sc.Sandbox == nil || sc.Sandbox.Protected == nil):
			t.Fatalf("the sandboxed server's policy does not ask where the files are: %+v", sc.Sandbox)
		case sc.Name == "boxed" && !slices.Contains(sc.Sandbox.Protected(), moved):
			t.Errorf("the server's sandbox hides %v, not the moved data directory %s", sc.Sandbox.Protected(), moved)
		}
	}
	if got := a.protectTerminal(terminalPolicy(cfg)).Protected(); !slices.Contains(got, moved) {
		t.Errorf("the terminal's sandbox hides %v, not the moved data directory %s", got, moved)
	}
	// Tools may write the roots and the sandboxed server's write paths;
	// those are what a discovered config is judged against.
	if diff := slices.Compare(writableDirs(cfg), []string{proj, filepath.Join(proj, "out")}); diff != 0 {
		t.Errorf("writableDirs = %v", writableDirs(cfg))
	}
	if _, err := os.Stat(filepath.Join(proj, "trust", "roots")); err != nil {
		t.Errorf("New did not record where tools may write: %v", err)
	}
}
