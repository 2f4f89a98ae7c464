package security

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox/sandboxtest"
)

// TestProtectRenamedParentsDoNotUncoverData: the data directory and the
// config lie below folders inside the root (proj/state/data,
// proj/etc/sb.yaml). A non-admin allowed the sandboxed terminal and the
// read-only file tools renames those folders, then reads the key hashes
// and tries to make itself admin in the live database. The renames are
// refused inside the sandbox; when the person moves the folders
// themselves while serve runs, the next sandbox and the next file-tool
// call still hide and refuse them where they are now.
func TestProtectRenamedParentsDoNotUncoverData(t *testing.T) {
	sandboxtest.Require(t)
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(proj, "etc", "sb.yaml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "sk-protect-rename-secret"
	writeFile(t, cfgPath, fmt.Sprintf(`data: ../state/data
builtin: {roots: [%q], terminal: {sandbox: required}}
approvals: {mode: allow-all}
models:
  default: {provider: openai, baseURL: "http://127.0.0.1:1/v1", model: fake, apiKey: %q}
`, proj, secret))
	withCfg := []string{"--config", cfgPath}
	admin := addUser(t, proj, append(withCfg, "ada", "--admin")...)
	mallory := addUser(t, proj, append(withCfg, "mallory", "--allow", "terminal", "--allow", "read_file", "--allow", "list_dir")...)
	s := serve(t, proj, withCfg...)
	db := filepath.Join(proj, "state", "data", "switchboard.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database is not where the test expects it: %v", err)
	}

	terminal := func(line string) string {
		t.Helper()
		code, _, text := s.toolCall(t, mallory, "terminal", map[string]any{"command": line})
		if code != 200 {
			t.Fatalf("terminal %q = %d %s", line, code, text)
		}
		return text
	}
	noLeak := func(what, out string) {
		t.Helper()
		for _, leak := range []string{"SQLite format", secret, "apiKey"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s: the output shows %q:\n%s", what, leak, out)
			}
		}
	}

	// The attacker renames the parents, then reads and writes the data.
	out := terminal("for m in 'state moved' 'etc etc2' 'state/data state/d2' 'etc/sb.yaml etc/x.yaml'; do mv $m && echo MOVED $m; done; " +
		"rm -rf state 2>&1 | head -1; ls -A state/data moved/data 2>&1; cat state/data/switchboard.db moved/data/switchboard.db etc/sb.yaml etc2/sb.yaml 2>&1 | head -c 2000")
	if strings.Contains(out, "MOVED") {
		t.Errorf("a parent of the data directory or config was renamed from the sandbox:\n%s", out)
	}
	if !strings.Contains(strings.ToLower(out), "busy") {
		t.Errorf("the rename was not refused as a busy mount point:\n%s", out)
	}
	noLeak("reading after the renames", out)
	out = terminal("printf 'UPDATE users SET role=1;' >> state/data/switchboard.db && echo WROTE; ls -A state/data | wc -l")
	if strings.Contains(out, "WROTE") {
		t.Errorf("the sandbox wrote into the live database:\n%s", out)
	}
	for _, p := range []string{db, cfgPath} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone after the attack: %v", p, err)
		}
	}

	// The person moves both folders while serve runs (the database stays
	// open). The next sandbox and the next file-tool call follow them.
	if err := os.Rename(filepath.Join(proj, "state"), filepath.Join(proj, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(proj, "etc"), filepath.Join(proj, "etc2")); err != nil {
		t.Fatal(err)
	}
	out = terminal("echo entries: $(ls -A moved/data | wc -l); cat moved/data/switchboard.db etc2/sb.yaml 2>&1 | head -c 2000; " +
		"printf x >> moved/data/switchboard.db && echo WROTE")
	if !strings.Contains(out, "entries: 0") || strings.Contains(out, "WROTE") {
		t.Errorf("the moved data directory is visible or writable in the next sandbox:\n%s", out)
	}
	noLeak("reading the moved folders", out)
	for _, a := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "moved/data/switchboard.db"}},
		{"list_dir", map[string]any{"path": "moved/data"}},
		{"read_file", map[string]any{"path": "etc2/sb.yaml"}},
	} {
		code, isErr, text := s.toolCall(t, mallory, a.tool, a.args)
		if code != 200 || !isErr || !strings.Contains(text, refusedByProtect) {
			t.Errorf("%s(%v) after the person's move = %d %v %s; want refused", a.tool, a.args, code, isErr, text)
		}
		noLeak(a.tool, text)
	}

	// Mallory is still no admin: the live database is as it was.
	if code, body := s.call(t, http.MethodGet, "/api/v1/audit?user=ada", mallory, nil); code != http.StatusForbidden {
		t.Errorf("mallory reading ada's audit = %d %s; want 403", code, body)
	}
	if code, body := s.call(t, http.MethodGet, "/api/v1/audit?user=ada", admin, nil); code != http.StatusOK {
		t.Errorf("ada reading her audit after the move = %d %s", code, body)
	}
}
