package security

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// configSecret is a secret an admin puts in a runtime entry: it must
// never come back, in the API or the audit trail.
const configSecret = "cfg-s3cret-value-9876"

// TestConfigRoutesAdminOnly: a user who is not an admin, even one allowed
// every tool, gets 403 on every method of /api/v1/config/... and changes
// nothing; no key at all gets 401. The admin's add, set and rm are in the
// audit trail with who and what, and the secret of the entry is in none
// of them.
func TestConfigRoutesAdminOnly(t *testing.T) {
	dir := project(t, "")
	ada := addUser(t, dir, "ada", "--admin")
	bob := addUser(t, dir, "bob", "--allow", "*")
	s := serve(t, dir)

	entry := map[string]any{"command": "/nonexistent/mcp-server", "disabled": true, "env": map[string]string{"API_TOKEN": configSecret}}
	if code, body := s.call(t, http.MethodPost, "/api/v1/config/server", ada, map[string]any{"name": "added", "entry": entry}); code != http.StatusCreated {
		t.Fatalf("ada adding a server = %d %s", code, body)
	}
	hostile := map[string]any{"command": "/bin/sh", "args": []string{"-c", "id"}}
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/v1/config/entries", nil},
		{http.MethodPost, "/api/v1/config/server", map[string]any{"name": "bobs", "entry": hostile}},
		{http.MethodGet, "/api/v1/config/server/added", nil},
		{http.MethodPut, "/api/v1/config/server/added", hostile},
		{http.MethodPost, "/api/v1/config/server/added/enable", nil},
		{http.MethodPost, "/api/v1/config/server/added/disable", nil},
		{http.MethodPost, "/api/v1/config/server/added/test", nil},
		{http.MethodDelete, "/api/v1/config/server/added", nil},
		{http.MethodPost, "/api/v1/config/model", map[string]any{"name": "m", "entry": map[string]any{"provider": "openai", "model": "x", "baseURL": "http://127.0.0.1:9/v1"}}},
		{http.MethodPost, "/api/v1/config/openapi", map[string]any{"name": "o", "entry": map[string]any{"url": "http://127.0.0.1:9/"}}},
	}
	for _, rt := range routes {
		if code, body := s.call(t, rt.method, rt.path, bob, rt.body); code != http.StatusForbidden || !strings.Contains(body, "admin") {
			t.Errorf("non-admin %s %s = %d %s; want 403 naming the admin role", rt.method, rt.path, code, body)
		}
		if code, body := s.call(t, rt.method, rt.path, "", rt.body); code != http.StatusUnauthorized {
			t.Errorf("no key %s %s = %d %s; want 401", rt.method, rt.path, code, body)
		}
	}
	code, body := s.call(t, http.MethodGet, "/api/v1/config/entries", ada, nil)
	if code != http.StatusOK || !strings.Contains(body, `"added"`) || strings.Contains(body, "bobs") || strings.Contains(body, "/bin/sh") || strings.Contains(body, `"m"`) {
		t.Errorf("entries after bob's attempts = %d %s; want ada's entry alone, unchanged", code, body)
	}

	// The admin's set and rm, after the add: all three audited.
	entry["args"] = []string{"--changed"}
	if code, body := s.call(t, http.MethodPut, "/api/v1/config/server/added", ada, entry); code != http.StatusOK {
		t.Fatalf("ada changing the server = %d %s", code, body)
	}
	if code, body := s.call(t, http.MethodDelete, "/api/v1/config/server/added", ada, nil); code != http.StatusNoContent {
		t.Fatalf("ada removing the server = %d %s", code, body)
	}
	code, body = s.call(t, http.MethodGet, "/api/v1/audit?user=ada", ada, nil)
	var recs struct {
		Items []struct {
			User, Tool, Server string
			Arguments          json.RawMessage
		} `json:"items"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &recs) != nil {
		t.Fatalf("ada's audit = %d %s", code, body)
	}
	if strings.Contains(body, configSecret) {
		t.Errorf("the audit trail holds the entry's secret:\n%s", body)
	}
	seen := map[string]bool{}
	for _, r := range recs.Items {
		if r.User == "ada" && r.Server == "added" && strings.HasPrefix(r.Tool, "config.server.") {
			seen[strings.TrimPrefix(r.Tool, "config.server.")] = true
		}
	}
	for _, action := range []string{"add", "set", "remove"} {
		if !seen[action] {
			t.Errorf("no audit record of ada's %s of server added (seen %v) in %s", action, seen, body)
		}
	}
	code, body = s.call(t, http.MethodGet, "/api/v1/audit", bob, nil)
	if code != http.StatusOK || strings.Contains(body, "config.server") {
		t.Errorf("bob's audit = %d %s; holds ada's config changes", code, body)
	}
}

// configToolWords are what a tool that manages the configuration would be
// named after.
var configToolWords = []string{"config", "entry", "entries", "add_server", "set_server", "remove_server_entry", "enable", "disable"}

// TestConfigNotReachableOverMCP: /mcp offers no tool that changes the
// configuration, to an admin nor anyone, and a tools/call naming one is
// refused; nothing is added.
func TestConfigNotReachableOverMCP(t *testing.T) {
	dir := project(t, "")
	ada := addUser(t, dir, "ada", "--admin")
	bob := addUser(t, dir, "bob", "--allow", "*")
	s := serve(t, dir)
	for who, key := range map[string]string{"ada": ada, "bob": bob} {
		cs, err := s.mcpSession(t, key)
		if err != nil {
			t.Fatalf("%s connecting: %v", who, err)
		}
		names := toolNames(t, cs)
		if len(names) == 0 {
			t.Fatalf("%s sees no tools at all: the test would prove nothing", who)
		}
		for _, n := range names {
			for _, w := range configToolWords {
				if strings.Contains(strings.ToLower(n), w) {
					t.Errorf("%s's tools/list has %q, which looks like configuration management", who, n)
				}
			}
		}
		for _, n := range []string{"config_add_server", "servers_add", "switchboard__config", "config.server.add", "add_server"} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: n, Arguments: map[string]any{"name": "x", "entry": map[string]any{"command": "/bin/sh"}}})
			if err == nil && !res.IsError {
				t.Errorf("%s calling %q over /mcp succeeded: %+v", who, n, res)
			}
		}
	}
	if code, body := s.call(t, http.MethodGet, "/api/v1/config/entries", ada, nil); code != http.StatusOK || strings.Contains(body, `"x"`) {
		t.Errorf("entries after the /mcp attempts = %d %s", code, body)
	}
}

// TestConfigNotReachableByAgentTurn: an admin's assistant turn is offered
// no tool that changes the configuration; a model that asks for one
// anyway gets a tool error, no approval is asked, and nothing is added.
func TestConfigNotReachableByAgentTurn(t *testing.T) {
	s := newStack(t, "")
	ada := s.userWithRole(t, "ada", store.RoleAdmin, "*")
	for _, name := range []string{"config_add_server", "add_server", "servers_add"} {
		ctx, cancel := context.WithCancel(t.Context())
		_, resp := s.postMessage(t, ctx, ada, `please call `+name+` {"name":"evil","entry":{"command":"/bin/sh"}}`)
		approvals := 0
		stream, ranOK := sseApprovals(resp.Body, func(string) { approvals++ })
		resp.Body.Close()
		cancel()
		if ranOK || approvals != 0 || !strings.Contains(stream, `"isError":true`) {
			t.Errorf("the model calling %s: ran ok %v, %d approvals; want a tool error:\n%s", name, ranOK, approvals, stream)
		}
	}
	s.model.mu.Lock()
	shown := maps.Clone(s.model.shown)
	s.model.mu.Unlock()
	if len(shown) == 0 {
		t.Fatal("the model was offered no tools: the test would prove nothing")
	}
	for n := range shown {
		for _, w := range configToolWords {
			if strings.Contains(strings.ToLower(n), w) {
				t.Errorf("the turn offered the model %q, which looks like configuration management", n)
			}
		}
	}
	if code, body := s.do(t, ada, http.MethodGet, "/api/v1/config/entries", nil); code != http.StatusOK || strings.Contains(string(body), "evil") {
		t.Errorf("entries after the model's attempts = %d %s", code, body)
	}
}
