package security

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPolicyEditsApplyToNextCall: who may call what is decided per call,
// with what serve runs now. The config file holds no users (they live in
// the store); what it holds about calls is the approval policy. bob may
// call calculator; an edit of the followed file that denies it refuses
// his next call on REST and on an /mcp session opened before the edit,
// with no restart; the edit undone, it works again. Then his permissions
// are changed by `users set` (another process, as an admin would): the
// next call is refused on both, and the open session no longer lists it.
func TestPolicyEditsApplyToNextCall(t *testing.T) {
	dir := project(t, "")
	addUser(t, dir, "ada", "--admin")
	bob := addUser(t, dir, "bob", "--allow", "calculator,current_time")
	s := serve(t, dir)
	cs, err := s.mcpSession(t, bob)
	if err != nil {
		t.Fatal(err)
	}
	rest := func() (int, string) {
		return s.call(t, http.MethodPost, "/api/v1/tools/calculator/call", bob, map[string]any{"arguments": map[string]any{"expression": "6*7"}})
	}
	overMCP := func() (bool, string) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
		if err != nil {
			return false, err.Error()
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return !res.IsError && strings.Contains(text.String(), "42"), text.String()
	}
	if code, body := rest(); code != http.StatusOK || !strings.Contains(body, "42") {
		t.Fatalf("bob's REST call before any edit = %d %s", code, body)
	}
	if ok, text := overMCP(); !ok {
		t.Fatalf("bob's /mcp call before any edit: %s", text)
	}

	path := filepath.Join(dir, "switchboard.yaml")
	writeFile(t, path, "approvals: {rules: [{server: builtin, tool: calculator, policy: deny}]}\n")
	eventually(t, "the deny rule refusing bob's REST call", func() bool {
		code, _ := rest()
		return code != http.StatusOK
	})
	if code, body := rest(); !strings.Contains(body, "approval policy") {
		t.Errorf("bob's REST call under the deny rule = %d %s; want it denied by the policy", code, body)
	}
	if ok, text := overMCP(); ok || !strings.Contains(text, "approval policy") {
		t.Errorf("bob's /mcp call under the deny rule ran or does not say it was denied: %s", text)
	}

	writeFile(t, path, "")
	eventually(t, "bob's REST call allowed again", func() bool {
		code, _ := rest()
		return code == http.StatusOK
	})
	if ok, text := overMCP(); !ok {
		t.Errorf("bob's /mcp call after the rule went: %s", text)
	}

	if r := switchboard(t, dir, "users", "set", "bob", "--allow", "current_time"); r.code != 0 {
		t.Fatalf("users set: %d %s", r.code, r.stderr)
	}
	eventually(t, "bob's narrowed permissions refusing his REST call", func() bool {
		code, _ := rest()
		return code == http.StatusForbidden || code == http.StatusNotFound
	})
	if ok, text := overMCP(); ok {
		t.Errorf("bob's /mcp call of a tool no longer allowed to him ran: %s", text)
	}
	if names := toolNames(t, cs); slices.Contains(names, "calculator") || !slices.Contains(names, "current_time") {
		t.Errorf("bob's open session lists %v; want current_time and not calculator", names)
	}
}
