package security

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// agentServers returns the servers of the named agent as the API lists
// them to key's holder.
func agentServers(t *testing.T, s *surfaceStack, key, name string) []string {
	t.Helper()
	code, body := s.do(t, key, http.MethodGet, "/api/v1/agents/"+name, nil)
	var a struct{ Servers []string }
	if code != http.StatusOK || json.Unmarshal(body, &a) != nil {
		t.Fatalf("GET /api/v1/agents/%s = %d %s", name, code, body)
	}
	return a.Servers
}

// TestOwnersAssistantNeedsTheAdminRole: the API refuses a non-admin who
// changes an agent's servers (403). Bob, not an admin but allowed every
// tool by his globs, asks his assistant instead: it calls assign_server
// and remove_server on the shared agent, and bob would approve both. Each
// call ends in a tool error naming the admin role, without an approval
// being asked, and the agent is as it was for everyone. The same request
// from an admin, approved by the admin, changes the agent: the rule is the
// API's, not a blanket ban.
func TestOwnersAssistantNeedsTheAdminRole(t *testing.T) {
	s := newStack(t, ownersConfig)
	bob := s.user(t, "bob", "*")
	adminKey, hash := server.NewAPIKey()
	if _, err := s.st.CreateUser(t.Context(), store.User{Name: "ada", KeyHash: hash, Permissions: []string{"*"}, Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	before := agentServers(t, s, bob, "helper")
	if code, _ := s.do(t, bob, http.MethodPut, "/api/v1/agents/helper/servers/builtin", map[string]any{}); code != http.StatusForbidden {
		t.Fatalf("bob assigning through the API = %d; want 403", code)
	}

	for _, msg := range []string{
		`please call assign_server {"agent":"helper","server":"builtin"}`,
		`please call remove_server {"agent":"helper","server":"test"}`,
	} {
		ctx, cancel := context.WithCancel(t.Context())
		_, resp := s.postMessage(t, ctx, bob, msg)
		approvals := 0
		stream, _ := sseApprovals(resp.Body, func(id string) {
			approvals++
			// Bob approves whatever is asked, as the attack needs.
			s.do(t, bob, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"})
		})
		resp.Body.Close()
		cancel()
		if approvals != 0 {
			t.Errorf("%s: bob was asked to approve %d times; a call he may not make is refused before", msg, approvals)
		}
		if !strings.Contains(stream, "needs the admin role") || !strings.Contains(stream, `"isError":true`) {
			t.Errorf("%s: the run did not end the call with a tool error naming the admin role:\n%s", msg, stream)
		}
	}
	if after := agentServers(t, s, bob, "helper"); !slices.Equal(before, after) {
		t.Errorf("helper's servers went from %v to %v through bob's assistant", before, after)
	}
	recs, err := s.st.ListAudit(t.Context(), store.AuditFilter{User: "bob", Tool: "assign_server"})
	if err != nil || len(recs) == 0 || recs[0].Approval != store.AuditForbidden {
		t.Errorf("bob's assign_server in the audit: %+v, %v; want it recorded as forbidden", recs, err)
	}

	// An admin's assistant may, once the admin approves.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, resp := s.postMessage(t, ctx, adminKey, `please call assign_server {"agent":"helper","server":"builtin"}`)
	approvals := 0
	stream, ranOK := sseApprovals(resp.Body, func(id string) {
		approvals++
		if code, body := s.do(t, adminKey, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"}); code != http.StatusOK {
			t.Errorf("ada approving: %d %s", code, body)
		}
	})
	resp.Body.Close()
	if approvals != 1 || !ranOK {
		t.Fatalf("ada's assign_server: %d approvals, ran ok %v:\n%s", approvals, ranOK, stream)
	}
	if after := agentServers(t, s, adminKey, "helper"); !slices.Contains(after, "builtin") {
		t.Errorf("helper's servers after ada's assistant assigned builtin: %v", after)
	}
}
