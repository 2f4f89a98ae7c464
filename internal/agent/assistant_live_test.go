package agent_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestSetAssistant: a changed assistant (as a config reload sets it)
// answers from the next run on, with its own prompt.
func TestSetAssistant(t *testing.T) {
	fake := llmtest.NewFakeProvider(say("one"), say("two"))
	e := newEnv(t, fake, func(o *envOptions) {
		o.Assistant = store.Agent{Prompt: "You are the first assistant.", Router: string(agent.RouterOff)}
	})
	e.mustRun(t, &agent.Request{Message: "hi"})
	e.rt.SetAssistant(store.Agent{Prompt: "You are the second assistant.", Router: string(agent.RouterOff)})
	e.mustRun(t, &agent.Request{Message: "hi again", ConversationID: "c2"})
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for i, want := range []string{"first", "second"} {
		if !strings.Contains(reqs[i].System, "You are the "+want+" assistant.") {
			t.Errorf("run %d's system prompt %q, want the %s assistant's", i+1, reqs[i].System, want)
		}
	}
}
