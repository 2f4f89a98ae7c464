package agent_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestAssistantTools calls each agent-management tool the way a model
// would, and checks what the model gets back.
func TestAssistantTools(t *testing.T) {
	tests := []struct {
		name, call, args string
		wantError        bool
		wantText         string
	}{
		{"list agents", "list_agents", `{}`, false, "@bob: e-mail (model bobm; servers: mail)"},
		{"list servers", "list_servers", `{}`, false, "builtin (1 tools)\nmail (1 tools)"},
		{"assign unknown server", "assign_server", `{"agent":"bob","server":"nope"}`, true, `there is no server "nope"; the servers are: builtin, mail`},
		{"assign to unknown agent", "assign_server", `{"agent":"zed","server":"mail"}`, true, "assigning mail to @zed failed"},
		{"assign with @", "assign_server", `{"agent":"@bob","server":"builtin"}`, false, "@bob now has the tools of builtin (servers: builtin, mail)"},
		{"remove", "remove_server", `{"agent":"bob","server":"mail"}`, false, "@bob no longer has the tools of mail (servers: none)"},
		{"missing argument", "remove_server", `{"agent":"bob"}`, true, "invalid arguments for remove_server"},
		{"malformed arguments", "list_agents", `{"oops":`, true, "invalid arguments for list_agents"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			main := llmtest.NewFakeProvider(calls("a1", tc.call, tc.args), say("ok"))
			e := handoffEnv(t, main, llmtest.NewFakeProvider(), []string{"mail"})
			evs := e.mustRun(t, &agent.Request{Message: "manage", Approver: agent.AutoApprove, Role: store.RoleAdmin})
			ends := find(evs, agent.EventToolEnd)
			if len(ends) != 1 || ends[0].Result.IsError != tc.wantError || !strings.Contains(ends[0].Result.Text, tc.wantText) {
				t.Errorf("result = %+v, want error %v and %q", ends, tc.wantError, tc.wantText)
			}
		})
	}
}

// TestAssistantToolsNeedTheAdminRole: assign_server and remove_server
// change an agent for every user, so they need the role the API's agent
// routes need. A run for a user without it (or whose surface set no role)
// gets a tool error saying so, whether its calls are approved by the user,
// automatically or not asked at all; nobody is asked to approve, the
// agent stays as it was, and the audit records the call as forbidden. The
// read-only management tools stay open to everyone.
func TestAssistantToolsNeedTheAdminRole(t *testing.T) {
	for _, role := range []store.Role{store.RoleUser, ""} {
		for _, approver := range []agent.Approver{agent.AutoApprove, agent.Interactive} {
			for _, call := range []string{"assign_server", "remove_server"} {
				main := llmtest.NewFakeProvider(calls("a1", call, `{"agent":"bob","server":"mail"}`), calls("a2", "list_agents", `{}`), say("ok"))
				e := handoffEnv(t, main, llmtest.NewFakeProvider(), []string{"builtin"})
				evs := e.mustRun(t, &agent.Request{Message: "give bob mail", Approver: approver, Role: role, User: "bob-the-user", UserID: "u1"})
				if n := len(find(evs, agent.EventApproval)); n != 0 {
					t.Errorf("role %q, %s: the user was asked %d times to approve a call that cannot run", role, call, n)
				}
				ends := find(evs, agent.EventToolEnd)
				if len(ends) != 2 || !ends[0].Result.IsError || !strings.Contains(ends[0].Result.Text, "needs the admin role") {
					t.Fatalf("role %q, %s: results %+v; want a tool error naming the admin role", role, call, ends)
				}
				if ends[1].Result.IsError {
					t.Errorf("role %q: list_agents refused: %s", role, ends[1].Result.Text)
				}
				if got := e.agents.agents["bob"].Servers; !slices.Equal(got, []string{"builtin"}) {
					t.Errorf("role %q, %s: bob's servers became %v; want [builtin]", role, call, got)
				}
				if recs := e.audit.all(); len(recs) == 0 || recs[0].Rec.Approval != store.AuditForbidden {
					t.Errorf("role %q, %s: audit %+v; want the call recorded as forbidden", role, call, recs)
				}
			}
		}
	}
	// The same call for an admin changes the agent.
	main := llmtest.NewFakeProvider(calls("a1", "assign_server", `{"agent":"bob","server":"mail"}`), say("ok"))
	e := handoffEnv(t, main, llmtest.NewFakeProvider(), []string{"builtin"})
	e.mustRun(t, &agent.Request{Message: "give bob mail", Approver: agent.AutoApprove, Role: store.RoleAdmin})
	if got := e.agents.agents["bob"].Servers; !slices.Equal(got, []string{"builtin", "mail"}) {
		t.Errorf("admin: bob's servers are %v; want [builtin mail]", got)
	}
}

// TestAssistantToolsAreTheAssistants checks that named agents do not get
// the agent-management tools.
func TestAssistantToolsAreTheAssistants(t *testing.T) {
	bob := llmtest.NewFakeProvider(say("hi"))
	e := handoffEnv(t, llmtest.NewFakeProvider(), bob, nil)
	e.mustRun(t, &agent.Request{Message: "hello", Agent: "bob"})
	for _, ts := range bob.Requests()[0].Tools {
		if ts.Name == "assign_server" || ts.Name == "list_agents" {
			t.Errorf("bob was offered %s", ts.Name)
		}
	}
	if len(bob.Requests()[0].Tools) != 2 {
		t.Errorf("bob (servers nil = all) was offered %d tools, want 2", len(bob.Requests()[0].Tools))
	}
}

// TestSampleWithoutConversation: with no run to ask in, only a policy that
// allows sampling lets it through.
func TestSampleWithoutConversation(t *testing.T) {
	fake := llmtest.NewFakeProvider(say("42"))
	e := newEnv(t, fake, nil)
	if _, err := e.rt.Sample(t.Context(), &agent.SampleRequest{Server: "calc"}); err == nil || !strings.Contains(err.Error(), "no conversation is running") {
		t.Errorf("Sample without approval: err = %v", err)
	}
	e = newEnv(t, fake, func(o *envOptions) {
		o.Policy.Rules = []agent.Rule{{Server: "calc", Tool: "sampling", Action: agent.ActionAllow}}
	})
	res, err := e.rt.Sample(t.Context(), &agent.SampleRequest{Server: "calc"})
	if err != nil || res.Text != "42" || res.Model != "main-id" {
		t.Errorf("Sample = %+v, %v", res, err)
	}
	got, err := e.rt.Elicit(t.Context(), &tools.ElicitRequest{Server: "calc", Message: "name?"})
	if err != nil || got.Action != tools.ElicitDecline {
		t.Errorf("Elicit without a conversation = %+v, %v", got, err)
	}
}

func TestDecideRejectsBadInput(t *testing.T) {
	e := newEnv(t, llmtest.NewFakeProvider(), nil)
	if err := e.rt.Decide(t.Context(), "nope", agent.Decision{Kind: agent.ApproveOnce}); err == nil {
		t.Error("deciding an unknown approval succeeded")
	}
	if err := e.rt.Decide(t.Context(), "nope", agent.Decision{}); err == nil || !strings.Contains(err.Error(), "unknown decision kind") {
		t.Errorf("zero decision: err = %v", err)
	}
}
