package security

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredStdioServerEnvironmentHoldsNoSecrets: Switchboard's own
// environment has model keys and a database URL; a stdio MCP server started
// through the real command line gets none of them, only the minimal base
// and what its config names. (The sandboxed terminal and servers reading
// /proc/<pid>/environ of Switchboard are tested with the sandbox, in
// internal/tools/builtin TestTerminalSandboxEscapes and internal/mcphost
// TestSandboxedServerEscapes.)
func TestCredStdioServerEnvironmentHoldsNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai-env")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-env")
	t.Setenv("DATABASE_URL", "postgres://sb:pw-env@db/sb")
	t.Setenv("SWITCHBOARD_DATABASE_URL", "postgres://sb:pw-env@db/sb")
	node, script := pinNode(t)
	hostile := filepath.Join(filepath.Dir(filepath.Dir(script)), "hostile", "server.mjs")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), fmt.Sprintf(`mcpServers:
  hostile: {command: %q, args: [%q], sandbox: false, env: {FROM_CONFIG: "yes"}}
`, node, hostile))

	r := pinRun(t, dir, "call", "hostile__env")
	if r.code != 0 {
		t.Fatalf("call hostile__env: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	names := strings.Split(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.stdout), "ok: ")), ",")
	for _, n := range names {
		switch {
		case strings.Contains(n, "OPENAI"), strings.Contains(n, "ANTHROPIC"), strings.Contains(n, "DATABASE"):
			t.Errorf("the stdio server got %s from Switchboard's environment", n)
		}
	}
	if !strings.Contains(r.stdout, "FROM_CONFIG") || !strings.Contains(r.stdout, "PATH") {
		t.Errorf("the server's environment lacks the configured or base variables: %s", r.stdout)
	}
}
