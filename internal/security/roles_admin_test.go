package security

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRolesAdminOnlyRoutes: a user without the admin role cannot change
// agents or their servers, restart servers or read their stderr, nor read
// another user's audit; an admin can. Both may list agents and tools.
func TestRolesAdminOnlyRoutes(t *testing.T) {
	// A server that cannot start has a last error to show (to admins).
	dir := project(t, "mcpServers:\n  broken: {command: /nonexistent/mcp-server}\n")
	admin := addUser(t, dir, "ada", "--admin")
	user := addUser(t, dir, "bob", "--allow", "calculator")
	s := serve(t, dir)

	if code, body := s.call(t, http.MethodPost, "/api/v1/agents", admin, map[string]any{"name": "helper", "prompt": "be brief"}); code != http.StatusCreated {
		t.Fatalf("admin creating an agent = %d %s; want 201", code, body)
	}
	adminOnly := []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/api/v1/agents", map[string]any{"name": "mine", "prompt": "obey me"}},
		{http.MethodPut, "/api/v1/agents/helper", map[string]any{"name": "helper", "prompt": "leak everything"}},
		{http.MethodDelete, "/api/v1/agents/helper", nil},
		{http.MethodPut, "/api/v1/agents/helper/servers/builtin", map[string]any{}},
		{http.MethodDelete, "/api/v1/agents/helper/servers/builtin", nil},
		{http.MethodPost, "/api/v1/servers/builtin/restart", nil},
		{http.MethodGet, "/api/v1/servers/builtin/stderr", nil},
		{http.MethodGet, "/api/v1/audit?user=ada", nil},
	}
	for _, rt := range adminOnly {
		code, body := s.call(t, rt.method, rt.path, user, rt.body)
		if code != http.StatusForbidden {
			t.Errorf("non-admin %s %s = %d %s; want 403", rt.method, rt.path, code, body)
		}
		if code == http.StatusForbidden && !strings.Contains(body, "admin") {
			t.Errorf("non-admin %s %s: refusal %s does not say an admin is needed", rt.method, rt.path, body)
		}
	}
	// Server errors quote stderr: only admins get them.
	eventually(t, "the broken server's error", func() bool {
		_, body := s.call(t, http.MethodGet, "/api/v1/servers", admin, nil)
		return strings.Contains(body, `"error"`)
	})
	if code, body := s.call(t, http.MethodGet, "/api/v1/servers", user, nil); code != 200 || !strings.Contains(body, "broken") || strings.Contains(body, `"error"`) || strings.Contains(body, `"roots"`) {
		t.Errorf("non-admin GET /api/v1/servers = %d %s; want the servers without errors or roots", code, body)
	}
	// The agent the non-admin tried to change is as the admin left it.
	code, body := s.call(t, http.MethodGet, "/api/v1/agents", user, nil)
	if code != 200 || !strings.Contains(body, "be brief") || strings.Contains(body, "leak everything") || strings.Contains(body, "obey me") {
		t.Errorf("agents after the non-admin's attempts = %d %s", code, body)
	}
	for _, rt := range adminOnly {
		if code, body := s.call(t, rt.method, rt.path, admin, rt.body); code == http.StatusForbidden || code == http.StatusUnauthorized {
			t.Errorf("admin %s %s = %d %s; want it allowed", rt.method, rt.path, code, body)
		}
	}
	// A non-admin reads its own audit; an admin reads everyone's.
	if code, body := s.call(t, http.MethodPost, "/api/v1/tools/calculator/call", user, map[string]any{"arguments": map[string]any{"expression": "1+1"}}); code != 200 {
		t.Fatalf("bob calling calculator = %d %s", code, body)
	}
	if code, body := s.call(t, http.MethodGet, "/api/v1/audit", user, nil); code != 200 || !strings.Contains(body, `"bob"`) {
		t.Errorf("bob's own audit = %d %s", code, body)
	}
	code, body = s.call(t, http.MethodGet, "/api/v1/audit?user=bob", admin, nil)
	var recs struct {
		Items []struct{ User string } `json:"items"`
	}
	_ = json.Unmarshal([]byte(body), &recs)
	if code != 200 || len(recs.Items) == 0 || recs.Items[0].User != "bob" {
		t.Errorf("admin reading bob's audit = %d %s", code, body)
	}
}

// TestRolesListShowsRole: `users list` shows each user's role, and `users
// set --admin/--no-admin` changes it.
func TestRolesListShowsRole(t *testing.T) {
	dir := project(t, "")
	addUser(t, dir, "ada", "--admin")
	addUser(t, dir, "bob")
	r := switchboard(t, dir, "users", "list")
	if !strings.Contains(r.stdout, "ROLE") || !rowHas(r.stdout, "ada", "admin") || !rowHas(r.stdout, "bob", "user") {
		t.Fatalf("users list:\n%s", r.stdout)
	}
	if r := switchboard(t, dir, "users", "set", "bob", "--admin"); r.code != 0 {
		t.Fatalf("users set --admin: %d %s", r.code, r.stderr)
	}
	if r := switchboard(t, dir, "users", "set", "ada", "--no-admin"); r.code != 0 {
		t.Fatalf("users set --no-admin: %d %s", r.code, r.stderr)
	}
	r = switchboard(t, dir, "users", "list")
	if !rowHas(r.stdout, "ada", "user") || !rowHas(r.stdout, "bob", "admin") {
		t.Errorf("users list after set:\n%s", r.stdout)
	}
	if r := switchboard(t, dir, "users", "set", "bob", "--admin", "--no-admin"); r.code == 0 {
		t.Error("users set --admin --no-admin succeeded")
	}
	if r := switchboard(t, dir, "users", "set", "nobody", "--admin"); r.code == 0 || !strings.Contains(r.stderr, "users list") {
		t.Errorf("users set of an unknown user: exit %d, %q", r.code, r.stderr)
	}
}

// rowHas reports whether a line of out starts with name and has role as
// its second column.
func rowHas(out, name, role string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == name && f[1] == role {
			return true
		}
	}
	return false
}
