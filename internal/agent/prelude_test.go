package agent_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// TestPreludeIsStoredBeforeTheMessage checks the earlier messages of a
// prompt the person ran reach the model before the message, in order, and
// stay in the conversation for the next turn.
func TestPreludeIsStoredBeforeTheMessage(t *testing.T) {
	fake := llmtest.NewFakeProvider(say("sunny"), say("still sunny"))
	e := newEnv(t, fake, nil)
	prelude := []llm.Message{llm.UserText("You are a forecaster."), {Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Ready.")}}}
	e.mustRun(t, &agent.Request{Message: "Weather in Lisbon?", Prelude: prelude})
	e.mustRun(t, &agent.Request{Message: "and tomorrow?"})

	want := append(append([]llm.Message{}, prelude...), llm.UserText("Weather in Lisbon?"))
	reqs := fake.Requests()
	got := reqs[0].Messages[len(reqs[0].Messages)-3:]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first request's messages mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, reqs[1].Messages[:3]); diff != "" {
		t.Errorf("second request's history mismatch (-want +got):\n%s", diff)
	}
}
