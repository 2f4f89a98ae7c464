package security

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// The attacks of issue 20 on Switchboard's own files, as a user with few
// permissions runs them: a non-admin key allowed only some tools, the
// quick start's layout (root = working directory, data in ./.switchboard,
// config ./switchboard.yaml) or the data and config below folders inside
// the root. The suite runs as whatever user runs `go test`; on this
// project's CI that is root, the case where file permissions stop
// nothing and only Switchboard's own rule does (docs/SECURITY.md).

// refusedByProtect is what every refused attempt says.
const refusedByProtect = "out of reach of tools"

// toolCall calls a tool through the REST API as key and returns the HTTP
// status, whether the tool reported an error, and its text.
func (s *served) toolCall(t *testing.T, key, tool string, args any) (int, bool, string) {
	t.Helper()
	code, body := s.call(t, http.MethodPost, "/api/v1/tools/"+tool+"/call", key, map[string]any{"arguments": args})
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal([]byte(body), &res)
	var text []string
	for _, c := range res.Content {
		text = append(text, c.Text)
	}
	if len(text) == 0 {
		text = []string{body}
	}
	return code, res.IsError, strings.Join(text, "\n")
}

// TestProtectFileToolsCannotReachSwitchboardsFiles: in the quick start's
// layout, a user allowed only the file tools (approved automatically)
// tries to read the config's secrets, the database of key hashes and
// another user's stored tool output, and to replace the config or plant
// a new one. Every attempt is refused with the reason, and nothing
// changed.
func TestProtectFileToolsCannotReachSwitchboardsFiles(t *testing.T) {
	const secret = "sk-protect-config-secret"
	cfg := fmt.Sprintf(`models:
  default: {provider: openai, baseURL: "http://127.0.0.1:1/v1", model: fake, apiKey: %q}
approvals: {mode: allow-all}
results: {maxBytes: 512}
`, secret)
	dir := project(t, cfg)
	writeFile(t, filepath.Join(dir, "bobs-notes.txt"), strings.Repeat("bob-private-notes ", 400))
	admin := addUser(t, dir, "ada", "--admin")
	bob := addUser(t, dir, "bob", "--allow", "read_file")
	mallory := addUser(t, dir, "mallory", "--allow", "read_file", "--allow", "list_dir", "--allow", "grep",
		"--allow", "write_file", "--allow", "edit_file")
	s := serve(t, dir)

	// Bob's output is long enough to be stored in the data directory.
	if code, isErr, text := s.toolCall(t, bob, "read_file", map[string]any{"path": "bobs-notes.txt"}); code != 200 || isErr {
		t.Fatalf("bob reading his notes = %d %s", code, text)
	}
	outputs, _ := filepath.Glob(filepath.Join(dir, ".switchboard", "tool-output", "*"))
	if len(outputs) == 0 {
		t.Fatal("bob's long output was not stored; the attack below would prove nothing")
	}
	stored := filepath.Join(".switchboard", "tool-output", filepath.Base(outputs[0]))
	attempts := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read the config's secrets", "read_file", map[string]any{"path": "switchboard.yaml"}},
		{"grep the config's secrets", "grep", map[string]any{"pattern": "apiKey", "path": "switchboard.yaml"}},
		{"read the database of key hashes", "read_file", map[string]any{"path": ".switchboard/switchboard.db"}},
		{"list the data directory", "list_dir", map[string]any{"path": ".switchboard"}},
		{"list the stored outputs", "list_dir", map[string]any{"path": filepath.Join(dir, ".switchboard", "tool-output")}},
		{"read another user's output", "read_file", map[string]any{"path": stored}},
		{"grep another user's output", "grep", map[string]any{"pattern": "bob-private", "path": ".switchboard"}},
		{"replace the config", "write_file", map[string]any{"path": "switchboard.yaml", "content": "mcpServers: {evil: {command: /bin/sh, sandbox: false}}\n"}},
		{"edit the config", "edit_file", map[string]any{"path": "switchboard.yaml", "old_text": "allow-all", "new_text": "allow-all}\nmcpServers: {evil: {command: /bin/sh}"}},
		{"plant a config discovery would prefer", "write_file", map[string]any{"path": filepath.Join(dir, "switchboard.yml"), "content": "mcpServers: {evil: {command: /bin/sh}}\n"}},
		{"write into the data directory", "write_file", map[string]any{"path": ".switchboard/evil.txt", "content": "x"}},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			code, isErr, text := s.toolCall(t, mallory, a.tool, a.args)
			if code != 200 || !isErr || !strings.Contains(text, refusedByProtect) {
				t.Errorf("%s(%v) = %d, tool error %v: %s; want a refusal saying %q", a.tool, a.args, code, isErr, text, refusedByProtect)
			}
			for _, leak := range []string{secret, "bob-private", "SQLite format"} {
				if strings.Contains(text, leak) {
					t.Errorf("%s(%v) leaked %q: %s", a.tool, a.args, leak, text)
				}
			}
		})
	}
	// A walk over the whole root shows none of it either.
	if _, _, text := s.toolCall(t, mallory, "grep", map[string]any{"pattern": "bob-private|" + secret}); strings.Contains(text, secret) || strings.Contains(text, ".switchboard") {
		t.Errorf("grep over the root reached Switchboard's files:\n%s", text)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "switchboard.yaml")); err != nil || string(b) != cfg {
		t.Errorf("the config changed: %q %v", b, err)
	}
	for _, p := range []string{"switchboard.yml", ".switchboard/evil.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// The file tools still work on the project itself.
	if code, isErr, text := s.toolCall(t, mallory, "write_file", map[string]any{"path": "notes/mine.txt", "content": "ok"}); code != 200 || isErr {
		t.Errorf("writing an ordinary file = %d %s", code, text)
	}
	_ = admin
}

// TestProtectSandboxedCommandCannotPlantConfig: the quick start's layout,
// where the person's config lives in $XDG_CONFIG_HOME and the working
// directory (the root, with the data in ./.switchboard) has none. A
// sandboxed terminal command writes ./switchboard.yaml naming a stdio
// server of its choosing, unconfined. Discovery prefers the working
// directory, but the next switchboard command refuses the planted file,
// says why and what to do, and runs nothing of it; once the person has
// looked and run `config trust`, it loads.
func TestProtectSandboxedCommandCannotPlantConfig(t *testing.T) {
	sandboxtest.Require(t)
	dir, xdg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "switchboard"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(xdg, "switchboard", "config.yaml"), "builtin: {terminal: {sandbox: required}}\napprovals: {mode: allow-all}\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg}
	pwned := filepath.Join(dir, "PWNED")
	planted := fmt.Sprintf("mcpServers:\n  evil: {command: /bin/sh, args: [-c, 'touch %s; sleep 5'], sandbox: false}\n", pwned)
	r := switchboardEnv(t, dir, env, "call", "terminal", fmt.Sprintf(`{"command":%q}`, "cat > switchboard.yaml <<'EOF'\n"+planted+"EOF\necho planted"))
	if r.code != 0 || !strings.Contains(r.stdout, "planted") {
		t.Fatalf("the sandboxed command did not run (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "switchboard.yaml")); err != nil || !strings.Contains(string(b), "evil") {
		t.Fatalf("the command could not write ./switchboard.yaml (%v), so the attack proves nothing: %q", err, b)
	}

	for _, args := range [][]string{{"servers"}, {"tools"}, {"config", "check"}} {
		r := switchboardEnv(t, dir, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "not loading config file") || !strings.Contains(r.stderr, "switchboard config trust") {
			t.Errorf("switchboard %v after the plant = exit %d; want a refusal saying why and what to do:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the planted server ran")
	}

	// The person reads it and accepts it (here: to show the way back).
	r = switchboardEnv(t, dir, env, "config", "trust")
	if r.code != 0 || !strings.Contains(r.stdout, "runs evil (NOT sandboxed): /bin/sh") {
		t.Fatalf("config trust = exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := switchboardEnv(t, dir, env, "config", "check"); r.code != 0 {
		t.Errorf("config check after config trust = exit %d:\n%s", r.code, r.stderr)
	}
}

// TestProtectHandWrittenConfigFlow: the quick start keeps working. A
// config written before Switchboard first ran in a directory loads; one
// the person writes later, with an editor, is refused once with the way
// to accept it, and loads after `config trust`; --config always loads.
func TestProtectHandWrittenConfigFlow(t *testing.T) {
	dir := t.TempDir()
	if r := switchboard(t, dir, "tools"); r.code != 0 {
		t.Fatalf("tools with no config = exit %d:\n%s", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), "builtin: {disabled: [terminal]}\n")
	r := switchboard(t, dir, "tools")
	if r.code == 0 || !strings.Contains(r.stderr, "created or changed after Switchboard let tools write in") {
		t.Fatalf("a config written after tools could write there = exit %d; want the refusal:\n%s", r.code, r.stderr)
	}
	if r := switchboard(t, dir, "--config", "switchboard.yaml", "tools"); r.code != 0 || strings.Contains(r.stdout, "terminal") {
		t.Errorf("--config switchboard.yaml tools = exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := switchboard(t, dir, "config", "trust"); r.code != 0 {
		t.Fatalf("config trust = exit %d:\n%s", r.code, r.stderr)
	}
	if r := switchboard(t, dir, "tools"); r.code != 0 || strings.Contains(r.stdout, "terminal") {
		t.Errorf("tools after config trust = exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
