package security

import (
	"database/sql"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite" // the driver Switchboard's SQLite store uses

	"github.com/switchboard-mcp/switchboard/internal/server"
)

// TestRolesReservedNameRefused: the anonymous user's name cannot be given
// to a stored user, in any letter case, and the refusal says why.
func TestRolesReservedNameRefused(t *testing.T) {
	dir := project(t, "")
	for _, name := range []string{"local", "LOCAL", "Local"} {
		r := switchboard(t, dir, "users", "add", name, "--allow", "calculator")
		if r.code == 0 || !strings.Contains(r.stderr, "reserved") {
			t.Errorf("users add %s: exit %d, stderr %q; want a refusal saying the name is reserved", name, r.code, r.stderr)
		}
	}
	if r := switchboard(t, dir, "users", "list"); strings.Contains(strings.ToLower(r.stdout), "local") {
		t.Errorf("a user named local was created:\n%s", r.stdout)
	}
}

// dbPath finds the SQLite database serve and the CLI use in dir.
func dbPath(t *testing.T, dir string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".db") {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no database under %s", dir)
	}
	return found
}

// TestRolesUserNamedLocalGetsOnlyItsTools: a stored user named "local"
// (as a database from before the name was reserved may hold) is judged by
// its ID and globs on /mcp, never waved through as the anonymous user.
func TestRolesUserNamedLocalGetsOnlyItsTools(t *testing.T) {
	dir := project(t, "")
	addUser(t, dir, "ada", "--admin") // creates the database
	db, err := sql.Open("sqlite", dbPath(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	key, hash := server.NewAPIKey()
	_, err = db.ExecContext(t.Context(), `INSERT INTO users (id, name, key_hash, permissions, created_at, disabled)
		VALUES ('u-local', 'local', ?, '["calculator"]', 1, 0)`, hash)
	db.Close()
	if err != nil {
		t.Fatalf("planting a user named local: %v", err)
	}
	s := serve(t, dir)
	cs, err := s.mcpSession(t, key)
	if err != nil {
		t.Fatalf("connecting as the user named local: %v", err)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"calculator"}) {
		t.Errorf("user named local sees %v; want only [calculator]", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Error("user named local called current_time, which its globs do not allow")
	}
	// Over the REST API too.
	if code, body := s.call(t, http.MethodGet, "/api/v1/tools", key, nil); code != 200 || strings.Contains(body, "current_time") {
		t.Errorf("GET /api/v1/tools as local = %d %s; want 200 with calculator only", code, body)
	}
}

// TestRolesAnonymousEndsWhenFirstUserAdded: a running serve on loopback
// answers without a key only while no user exists. `users add` from
// another invocation ends anonymous access at once, without a restart,
// for the REST API and for an MCP session opened anonymously before.
func TestRolesAnonymousEndsWhenFirstUserAdded(t *testing.T) {
	dir := project(t, "")
	s := serve(t, dir)
	if code, body := s.call(t, http.MethodGet, "/api/v1/tools", "", nil); code != 200 {
		t.Fatalf("anonymous before any user = %d %s; want 200", code, body)
	}
	anon, err := s.mcpSession(t, "")
	if err != nil {
		t.Fatalf("anonymous MCP session: %v", err)
	}
	if got := toolNames(t, anon); !slices.Contains(got, "current_time") {
		t.Fatalf("anonymous session sees %v; want every tool", got)
	}

	key := addUser(t, dir, "bob", "--allow", "calculator")

	// No waiting: the very next anonymous request is refused.
	if code, body := s.call(t, http.MethodGet, "/api/v1/tools", "", nil); code != http.StatusUnauthorized {
		t.Errorf("anonymous after users add = %d %s; want 401", code, body)
	}
	if code, _ := s.call(t, http.MethodGet, "/v1/models", "sk-anything", nil); code != http.StatusUnauthorized {
		t.Errorf("non-Switchboard bearer after users add = %d; want 401", code)
	}
	res, err := anon.CallTool(t.Context(), &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Error("the anonymous MCP session still calls tools after a user was created")
	}
	if _, err := s.mcpSession(t, ""); err == nil {
		t.Error("a new anonymous MCP session was accepted after a user was created")
	}
	cs, err := s.mcpSession(t, key)
	if err != nil {
		t.Fatalf("bob's session: %v", err)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"calculator"}) {
		t.Errorf("bob sees %v; want [calculator]", got)
	}
}

// TestRolesChangesApplyWithoutRestart: `users set` (another invocation)
// changes a running server's view of the user within its check interval:
// new globs, disabling, and removing the user.
func TestRolesChangesApplyWithoutRestart(t *testing.T) {
	dir := project(t, "")
	key := addUser(t, dir, "bob", "--allow", "calculator")
	s := serve(t, dir)
	tools := func() string { _, body := s.call(t, http.MethodGet, "/api/v1/tools", key, nil); return body }
	if b := tools(); !strings.Contains(b, `"calculator"`) || strings.Contains(b, "current_time") {
		t.Fatalf("bob's tools before = %s", b)
	}
	if r := switchboard(t, dir, "users", "set", "bob", "--allow", "current_time"); r.code != 0 {
		t.Fatalf("users set: exit %d\n%s", r.code, r.stderr)
	}
	eventually(t, "new globs apply", func() bool {
		b := tools()
		return strings.Contains(b, "current_time") && !strings.Contains(b, `"calculator"`)
	})
	if r := switchboard(t, dir, "users", "set", "bob", "--disable"); r.code != 0 {
		t.Fatalf("users set --disable: exit %d\n%s", r.code, r.stderr)
	}
	eventually(t, "disabling applies", func() bool {
		code, _ := s.call(t, http.MethodGet, "/api/v1/tools", key, nil)
		return code == http.StatusForbidden
	})
	if r := switchboard(t, dir, "users", "rm", "bob"); r.code != 0 {
		t.Fatalf("users rm: exit %d\n%s", r.code, r.stderr)
	}
	eventually(t, "removal applies", func() bool {
		code, _ := s.call(t, http.MethodGet, "/api/v1/tools", key, nil)
		return code == http.StatusUnauthorized
	})
	// With no user left, loopback is anonymous again.
	if code, _ := s.call(t, http.MethodGet, "/api/v1/tools", "", nil); code != 200 {
		t.Errorf("anonymous after the last user left = %d; want 200", code)
	}
}

// TestRolesNameOfRemovedUserNotReused: conversations and audit records
// are filed under the user's name, so a name a removed user left records
// under is refused for a new user, who would otherwise see them.
func TestRolesNameOfRemovedUserNotReused(t *testing.T) {
	dir := project(t, "")
	key := addUser(t, dir, "bob", "--allow", "calculator")
	s := serve(t, dir)
	if code, body := s.call(t, http.MethodPost, "/api/v1/conversations", key, map[string]any{"title": "bob's secrets"}); code != http.StatusCreated {
		t.Fatalf("creating bob's conversation = %d %s", code, body)
	}
	if r := switchboard(t, dir, "users", "rm", "bob"); r.code != 0 {
		t.Fatalf("users rm: %d %s", r.code, r.stderr)
	}
	r := switchboard(t, dir, "users", "add", "bob")
	if r.code == 0 || !strings.Contains(r.stderr, "another name") {
		t.Errorf("re-adding bob: exit %d, stderr %q; want a refusal asking for another name", r.code, r.stderr)
	}
	if r := switchboard(t, dir, "users", "add", "bobby"); r.code != 0 {
		t.Errorf("adding bobby: exit %d %s", r.code, r.stderr)
	}
}
