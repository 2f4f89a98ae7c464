package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// envRunMain makes the test binary run as the switchboard command.
const envRunMain = "SWITCHBOARD_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	// A confined terminal or stdio server re-executes this binary as the
	// sandbox's shim.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	mcptest.MaybeServe() // the stdio test servers are this binary re-executed
	maybeServeBareGateway()
	if os.Getenv(envRunMain) != "" {
		// This binary as the switchboard command itself, for tests that
		// run a real Switchboard process (the interop and gateway tests).
		os.Exit(Main())
	}
	goleak.VerifyTestMain(m)
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs the command line in dir with the given environment.
func run(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	// Logs and progress are written from other goroutines than the
	// command's, as they are to os.Stderr, which is safe for that.
	var out, errb clitest.Buffer
	code := Run(context.Background(), &Env{
		Args:   args,
		Stdin:  strings.NewReader(env["_stdin"]),
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Cwd:    dir,
	})
	return result{code, out.String(), errb.String()}
}

// serverYAML renders a test server's config as an mcpServers entry.
func serverYAML(sc mcphost.ServerConfig) string {
	m := map[string]any{"command": sc.Command, "args": sc.Args, "env": sc.Env}
	b, _ := json.Marshal(m) // JSON is YAML
	return "  " + sc.Name + ": " + string(b) + "\n"
}

// project writes a config with the given servers into a fresh directory.
func project(t *testing.T, extra string, servers ...mcphost.ServerConfig) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("mcpServers:\n")
	for _, s := range servers {
		b.WriteString(serverYAML(s))
	}
	if len(servers) == 0 {
		b.WriteString("  {}\n")
	}
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestServersShowsEveryServerEvenWhenOneFails(t *testing.T) {
	good := mcptest.StdioServer(t, "good")
	bad := mcptest.StdioServer(t, "bad", mcptest.ModeExit)
	dir := project(t, "", good, bad)

	r := run(t, dir, nil, "servers", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var st []struct {
		Name, Kind, State, LastError, ProtocolVersion string
		Tools                                         int
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("decoding %q: %v", r.stdout, err)
	}
	got := map[string]string{}
	for _, s := range st {
		got[s.Name] = s.State
		switch s.Name {
		case "good":
			if s.Tools == 0 || s.ProtocolVersion == "" {
				t.Errorf("good server: %+v, want tools and a protocol version", s)
			}
		case "bad":
			if s.LastError == "" {
				t.Errorf("bad server has no last error: %+v", s)
			}
		}
	}
	if got["good"] != "ready" || got["bad"] == "ready" || got["builtin"] != "ready" {
		t.Errorf("states = %v, want good and builtin ready, bad not", got)
	}

	r = run(t, dir, nil, "servers")
	for _, want := range []string{"NAME", "good", "bad", "builtin", "MCP roots offered", "  good  none"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestToolsListsBuiltinAndMCPTools(t *testing.T) {
	dir := project(t, "", mcptest.StdioServer(t, "test"))
	r := run(t, dir, nil, "tools", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var list []struct {
		Name        string
		Server      string
		InputSchema json.RawMessage
		Annotations *struct{ ReadOnlyHint bool }
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range list {
		names[e.Name] = true
		if len(e.InputSchema) == 0 {
			t.Errorf("%s has no input schema", e.Name)
		}
		if e.Name == "test__echo" && (e.Annotations == nil || !e.Annotations.ReadOnlyHint || e.Server != "test") {
			t.Errorf("test__echo = %+v, want read-only from server test", e)
		}
	}
	for _, want := range []string{"read_file", "calculator", "test__echo", "test__add"} {
		if !names[want] {
			t.Errorf("tools lack %s; have %v", want, names)
		}
	}

	r = run(t, dir, nil, "tools", "--server", "test")
	if strings.Contains(r.stdout, "read_file") || !strings.Contains(r.stdout, "test__echo") {
		t.Errorf("--server test:\n%s", r.stdout)
	}
	r = run(t, dir, nil, "tools", "--server", "nope")
	if r.code != 2 {
		t.Errorf("--server nope: exit %d, want 2", r.code)
	}
}

func TestCallExitCodes(t *testing.T) {
	dir := project(t, "", mcptest.StdioServer(t, "test"))
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		{"mcp success", []string{"call", "test__echo", `{"text":"hi there"}`}, "", 0, "hi there", ""},
		{"builtin success", []string{"call", "calculator", `{"expression":"2^10"}`}, "", 0, "1024", ""},
		{"args from stdin", []string{"call", "test__echo", "-"}, `{"text":"from stdin"}`, 0, "from stdin", ""},
		{"structured result", []string{"call", "test__add", `{"a":2,"b":3}`}, "", 0, "5", ""},
		{"tool error", []string{"call", "test__fail"}, "", 1, "", "it broke"},
		{"validation error", []string{"call", "test__add", `{"a":"two"}`}, "", 1, "", "/a"},
		{"unknown tool", []string{"call", "test__nope"}, "", 2, "", "not found"},
		{"not an object", []string{"call", "test__echo", `[1,2]`}, "", 2, "", "JSON object"},
		{"bad json", []string{"call", "test__echo", `{"text":`}, "", 2, "", "JSON object"},
		{"no tool", []string{"call"}, "", 2, "", "accepts between 1 and 2 arg"},
		{"progress on stderr", []string{"call", "test__progress", `{"steps":3}`}, "", 0, "token=true", "progress: 3/3 step 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, map[string]string{"_stdin": tt.stdin}, tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.wantOut) {
				t.Errorf("stdout %q lacks %q", r.stdout, tt.wantOut)
			}
			if !strings.Contains(r.stderr, tt.wantErrOut) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.wantErrOut)
			}
		})
	}
}

func TestCallStartsOnlyTheNamedServer(t *testing.T) {
	other := mcptest.StdioServer(t, "other")
	dir := project(t, "", mcptest.StdioServer(t, "test"), other)
	if r := run(t, dir, nil, "call", "test__echo", `{"text":"x"}`); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if ev := mcptest.ReadEvents(mcptest.EventsFile(other)); len(ev) != 0 {
		t.Errorf("server other was started for a call to test__echo: %v", ev)
	}
}

func TestConfigCheck(t *testing.T) {
	dir := project(t, `models:
  default: {provider: openai, model: gpt-4o-mini, apiKey: "${MY_KEY}"}
`, mcptest.StdioServer(t, "test"))
	r := run(t, dir, map[string]string{"MY_KEY": "sk-very-secret"}, "config", "check")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "sk-very-secret") || !strings.Contains(r.stdout, "REDACTED") {
		t.Errorf("secret not redacted:\n%s", r.stdout)
	}

	bad := t.TempDir()
	cfg := "mcpServers:\n  a: {}\n  b: {command: x, url: 'http://y'}\nbogus: 1\n"
	if err := os.WriteFile(filepath.Join(bad, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r = run(t, bad, nil, "config", "check")
	if r.code != 2 {
		t.Fatalf("invalid config: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "bogus") {
		t.Errorf("stderr does not name the unknown key:\n%s", r.stderr)
	}
	// Every command refuses the invalid config the same way.
	if r := run(t, bad, nil, "tools"); r.code != 2 {
		t.Errorf("tools with invalid config: exit %d, want 2", r.code)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	dir := project(t, "", mcptest.StdioServer(t, "test"))
	r := run(t, dir, nil, "resources")
	if r.code != 0 || !strings.Contains(r.stdout, "test") {
		t.Fatalf("resources: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, nil, "prompts")
	if r.code != 0 || !strings.Contains(r.stdout, "test") {
		t.Fatalf("prompts: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	r := run(t, t.TempDir(), nil, "frobnicate")
	if r.code != 2 {
		t.Errorf("exit %d, want 2", r.code)
	}
}

func TestToolsProviderFormats(t *testing.T) {
	dir := project(t, "", mcptest.StdioServer(t, "test"))
	for _, tt := range []struct{ provider, want string }{
		{"openai", `"type": "function"`},
		{"ollama", `"type": "function"`},
		{"anthropic", `"input_schema"`},
		{"gemini", `"functionDeclarations"`},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			r := run(t, dir, nil, "tools", "--provider", tt.provider, "--server", "test")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var v any
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, r.stdout)
			}
			if !strings.Contains(r.stdout, tt.want) || !strings.Contains(r.stdout, "test__echo") {
				t.Errorf("output lacks %s or test__echo:\n%s", tt.want, r.stdout)
			}
		})
	}
	if r := run(t, dir, nil, "tools", "--provider", "bogus"); r.code != 2 {
		t.Errorf("bogus provider: exit %d, want 2", r.code)
	}
}

// TestOneShotCommandsLogWarnings checks that a one-shot command logs only
// warnings unless asked for more: the default log level is the command's,
// not a config default of info.
func TestOneShotCommandsLogWarnings(t *testing.T) {
	dir := project(t, "", mcptest.StdioServer(t, "test"))
	r := run(t, dir, nil, "tools")
	if r.code != 0 || strings.Contains(r.stderr, "level=INFO") {
		t.Fatalf("tools: exit %d, stderr has info logs:\n%s", r.code, r.stderr)
	}
	r = run(t, dir, nil, "--log-level", "info", "tools")
	if r.code != 0 || !strings.Contains(r.stderr, `msg="mcp server ready"`) {
		t.Fatalf("tools --log-level info: exit %d, stderr lacks the info log:\n%s", r.code, r.stderr)
	}
}
