package cli

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// TestEveryKindOfTool: built-in, MCP and OpenAPI tools are listed together
// and each kind can be called.
func TestEveryKindOfTool(t *testing.T) {
	mail := emailserver.NewWithOptions(&emailserver.Options{Bearer: "s3cret"})
	srv := httptest.NewServer(mail)
	defer srv.Close()
	dir := project(t, "openapiServers:\n  email: {url: '"+srv.URL+"', bearer: '${MAIL_TOKEN}'}\n", mcptest.StdioServer(t, "test"))
	env := map[string]string{"MAIL_TOKEN": "s3cret"}

	r := run(t, dir, env, "tools", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var list []struct {
		Name   string
		Origin struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range list {
		kinds[e.Name] = e.Origin.Kind
	}
	for name, kind := range map[string]string{"read_file": "builtin", "test__echo": "mcp", "email__read-emails": "openapi", "email__send-email": "openapi"} {
		if kinds[name] != kind {
			t.Errorf("%s: kind %q, want %q (catalogue: %v)", name, kinds[name], kind, kinds)
		}
	}

	r = run(t, dir, env, "call", "email__read-emails", `{"limit": 2}`)
	if r.code != 0 {
		t.Fatalf("read-emails: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "msg-1") || !strings.Contains(r.stdout, "msg-2") || strings.Contains(r.stdout, "msg-3") {
		t.Errorf("read-emails with limit 2:\n%s", r.stdout)
	}
	r = run(t, dir, env, "call", "email__send-email", `{"to": "bob@example.com", "subject": "hi", "body": "hello"}`)
	if r.code != 0 || len(mail.Sent()) != 1 || mail.Sent()[0].To != "bob@example.com" {
		t.Errorf("send-email: exit %d, sent %+v\n%s", r.code, mail.Sent(), r.stderr)
	}
	// A wrong token is the service's 401, reported as a tool error.
	r = run(t, dir, map[string]string{"MAIL_TOKEN": "wrong"}, "call", "email__read-emails")
	if r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Errorf("wrong token: exit %d, stderr %q; want 1 and the status", r.code, r.stderr)
	}
	// The server is shown with its state, and a broken one does not hide the rest.
	srv.Close()
	r = run(t, dir, env, "servers")
	if !strings.Contains(r.stdout, "email") || !strings.Contains(r.stdout, "failed") || !strings.Contains(r.stdout, "ready") {
		t.Errorf("servers with the OpenAPI service down:\n%s", r.stdout)
	}
}
