package security

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestCredSandboxedTerminalCannotReadSwitchboardsEnvironment: a real
// switchboard binary, with model keys and a database URL in its
// environment, runs the terminal tool sandboxed. The command's own
// environment holds none of them, and reading the environment of its
// parent (/proc/$PPID/environ) or of any process it can see yields none.
func TestCredSandboxedTerminalCannotReadSwitchboardsEnvironment(t *testing.T) {
	sandboxtest.Require(t)
	dir := t.TempDir()
	// This test binary as the switchboard command (see TestMain), in its
	// own process with the secrets in its environment.
	bin := os.Args[0]
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), fmt.Sprintf(`builtin: {roots: [%q], terminal: {sandbox: required}}
approvals: {mode: allow-all}
`, dir))
	secrets := []string{"sk-openai-t3rm", "sk-ant-t3rm", "pw-db-t3rm"}
	cmd := exec.CommandContext(ctx, bin, "call", "terminal",
		`{"command":"env; echo ---; cat /proc/$PPID/environ; echo; for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null; done | tr '\\0' '\\n'"}`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envRunMain+"=1", "OPENAI_API_KEY="+secrets[0], "ANTHROPIC_API_KEY="+secrets[1],
		"DATABASE_URL=postgres://sb:"+secrets[2]+"@db/sb", "SWITCHBOARD_DATA="+filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "---") {
		t.Fatalf("switchboard call terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "PATH=") {
		t.Fatalf("the command did not run:\n%s", out)
	}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("the sandboxed command saw %s:\n%s", s, out)
		}
	}
}
