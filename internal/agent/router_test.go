package agent_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestRouter(t *testing.T) {
	tests := []struct {
		name       string
		mode       agent.RouterMode
		toolMode   agent.ToolMode
		answer     string // the router's answer; "" when it must not run
		wantTools  bool   // whether the answering request offers tools
		wantRouter string // usage record's Router
	}{
		{"always, no", agent.RouterAlways, agent.ToolModeNative, "No.", false, "chat"},
		{"always, yes", agent.RouterAlways, agent.ToolModeNative, "yes", true, "tools"},
		{"always, unclear means tools", agent.RouterAlways, agent.ToolModeNative, "hmm, perhaps", true, "tools"},
		{"auto on a text-mode model", agent.RouterAuto, agent.ToolModeText, "no", false, "chat"},
		{"zero value is auto", "", agent.ToolModeText, "NO", false, "chat"},
		{"auto on a native model", agent.RouterAuto, agent.ToolModeNative, "", true, ""},
		{"off on a text-mode model", agent.RouterOff, agent.ToolModeText, "", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := llmtest.NewFakeProvider()
			if tc.answer != "" {
				fake.Push(say(tc.answer))
			}
			fake.Push(say("Hello!"))
			e := newEnv(t, fake, func(o *envOptions) { o.Assistant.Router = string(tc.mode) })
			e.modes["main"] = tc.toolMode
			e.setTools(tool("echo", readOnly, nil))
			evs := e.mustRun(t, &agent.Request{Message: "hi there", RunID: "r1"})

			reqs := fake.Requests()
			answering := reqs[len(reqs)-1]
			if got := len(answering.Tools) > 0; got != tc.wantTools {
				t.Errorf("tools offered = %v, want %v", got, tc.wantTools)
			}
			routed := find(evs, agent.EventRouter)
			if tc.answer == "" {
				if len(reqs) != 1 || len(routed) != 0 {
					t.Errorf("router ran: %d requests, events %+v", len(reqs), routed)
				}
			} else {
				if len(routed) != 1 || routed[0].Router.NeedsTools != tc.wantTools || routed[0].Router.Answer != tc.answer {
					t.Errorf("router events = %+v", routed)
				}
				rr := reqs[0]
				if len(rr.Tools) != 0 || rr.MaxTokens == 0 || rr.System == "" || len(rr.Messages) != 1 {
					t.Errorf("router request = %+v", rr)
				}
			}
			want := []store.Usage{{RunID: "r1", ConversationID: "c1", Model: "main", Router: tc.wantRouter}}
			got := e.usage.all()
			for i := range got {
				got[i].StartedAt, got[i].FinishedAt = want[0].StartedAt, want[0].FinishedAt
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("usage mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
