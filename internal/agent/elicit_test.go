package agent_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestMCPElicitationAnswers: decline and cancel reach the server as
// different actions, and accepted values that do not fit the requested
// schema are never sent: the server gets cancel instead. The resolved
// event carries the answer sent.
func TestMCPElicitationAnswers(t *testing.T) {
	cases := []struct {
		name   string
		d      agent.Decision
		server string
		state  store.ApprovalState
		action string
	}{
		{"decline", agent.Decision{Kind: agent.Deny}, "action=decline name=<nil>", store.ApprovalDenied, tools.ElicitDecline},
		{"cancel", agent.Decision{Kind: agent.Cancel, By: "ann"}, "action=cancel name=<nil>", store.ApprovalExpired, tools.ElicitCancel},
		{"wrong type", agent.Decision{Kind: agent.ApproveOnce, Content: map[string]any{"name": 7.0}}, "action=cancel name=<nil>", store.ApprovalExpired, tools.ElicitCancel},
		{"extra field", agent.Decision{Kind: agent.ApproveOnce, Content: map[string]any{"name": "Ada", "admin": true}}, "action=cancel name=<nil>", store.ApprovalExpired, tools.ElicitCancel},
		{"not carried", agent.Decision{Kind: agent.ApproveOnce}, "action=cancel name=<nil>", store.ApprovalExpired, tools.ElicitCancel},
		{"accept", agent.Decision{Kind: agent.ApproveOnce, Content: map[string]any{"name": "Ada"}}, "action=accept name=Ada", store.ApprovalApproved, tools.ElicitAccept},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := mcpEnv(t, llmtest.NewFakeProvider(calls("c1", "test__elicit", `{}`), say("ok")))
			evs := e.runDeciding(t, &agent.Request{Message: "ask my name"}, func(*store.Approval) *agent.Decision { return &c.d })
			ends := find(evs, agent.EventToolEnd)
			if len(ends) != 1 || ends[0].Result.Text != c.server {
				t.Errorf("tool ends = %+v, want the server to say %q", ends, c.server)
			}
			res := find(evs, agent.EventApprovalResolved)
			if len(res) != 1 || res[0].Approval.State != c.state || res[0].Elicit == nil || res[0].Elicit.Action != c.action {
				t.Fatalf("resolved events = %+v, want state %s, action %s", res, c.state, c.action)
			}
			if c.action == tools.ElicitCancel && res[0].Approval.Reason == "" {
				t.Error("a cancelled question has no reason")
			}
		})
	}
}
