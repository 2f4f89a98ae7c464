package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// countingHistory is a History that counts its uses; stateless runs must
// leave it alone.
type countingHistory struct {
	mu   sync.Mutex
	uses int
}

func (h *countingHistory) ListMessages(context.Context, string, store.MessageFilter) ([]store.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.uses++
	return nil, nil
}

func (h *countingHistory) AppendMessages(_ context.Context, _ string, msgs ...store.Message) ([]store.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.uses++
	return msgs, nil
}

func sysText(s string) llm.Message {
	return llm.Message{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart(s)}}
}

// transcript renders messages as role:text lines, with calls and results.
func transcript(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		s := string(m.Role) + ":" + m.Text()
		for _, c := range m.ToolCalls {
			s += " call " + c.ID + " " + c.Name
		}
		if m.ToolCallID != "" {
			s += " for " + m.ToolCallID
		}
		out = append(out, s)
	}
	return out
}

// TestStatelessRunUsesTheGivenConversation checks that a run with Messages
// sends them to the model as they are, stores nothing in History, and
// still records audit and usage under the given conversation id.
func TestStatelessRunUsesTheGivenConversation(t *testing.T) {
	weather := llm.ToolCall{ID: "w1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}
	tests := []struct {
		name    string
		msgs    []llm.Message
		message string
	}{
		{"ends with a user message", []llm.Message{sysText("be brief"), llm.UserText("hi"), llm.AssistantText("hello"), llm.UserText("echo this")}, "echo this"},
		{"message left empty", []llm.Message{llm.UserText("echo this")}, ""},
		{"ends with tool results", []llm.Message{
			llm.UserText("weather in Oslo?"),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{weather}},
			llm.ToolResult(weather, "sunny", false),
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hist := &countingHistory{}
			fake := llmtest.NewFakeProvider(calls("c1", "echo", `{"x":1}`), say("done"))
			e := newEnv(t, fake, func(o *envOptions) { o.History = hist })
			e.setTools(tool("echo", readOnly, nil))
			given := append([]llm.Message(nil), tc.msgs...)
			evs := e.mustRun(t, &agent.Request{ConversationID: "chatcmpl-1", RunID: "r1", Messages: given, Message: tc.message})

			reqs := fake.Requests()
			if diff := cmp.Diff(transcript(tc.msgs), transcript(reqs[0].Messages)); diff != "" {
				t.Errorf("first model request mismatch (-want +got):\n%s", diff)
			}
			want := append(transcript(tc.msgs), "assistant: call c1 echo", `tool:{"x":1} for c1`)
			if diff := cmp.Diff(want, transcript(reqs[1].Messages)); diff != "" {
				t.Errorf("second model request mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(transcript(tc.msgs), transcript(given)); diff != "" {
				t.Errorf("the caller's messages were modified (-want +got):\n%s", diff)
			}
			if hist.uses != 0 {
				t.Errorf("History was used %d times in a stateless run", hist.uses)
			}
			if got := text(evs); got != "done" {
				t.Errorf("answer = %q", got)
			}
			if recs := e.audit.all(); len(recs) != 1 || recs[0].Rec.ConversationID != "chatcmpl-1" || recs[0].Res.Outcome != store.OutcomeOK {
				t.Errorf("audit = %+v", recs)
			}
			if us := e.usage.all(); len(us) != 1 || us[0].ConversationID != "chatcmpl-1" || us[0].RunID != "r1" {
				t.Errorf("usage = %+v", us)
			}
		})
	}
}

// TestStatelessMentionHandsOff checks that a stateless conversation's last
// user message may hand the turn to a named agent.
func TestStatelessMentionHandsOff(t *testing.T) {
	main := llmtest.NewFakeProvider()
	bob := llmtest.NewFakeProvider(say("No new mail."))
	e := handoffEnv(t, main, bob, []string{"mail"})
	evs := e.mustRun(t, &agent.Request{Messages: []llm.Message{llm.UserText("@bob any mail?")}})
	if d := last(evs); d.Kind != agent.EventDone || d.Agent != "bob" || text(evs) != "No new mail." {
		t.Errorf("events = %+v", evs)
	}
	if len(main.Requests()) != 0 {
		t.Errorf("the assistant's model was asked")
	}
}

// TestInvalidRequests checks that requests that cannot run are refused
// with ErrInvalidRequest before any model call.
func TestInvalidRequests(t *testing.T) {
	weather := llm.ToolSpec{Name: "weather"}
	tests := []struct {
		name string
		req  agent.Request
		want string
	}{
		{"no conversation", agent.Request{ConversationID: "-", Message: "hi"}, "conversation id is empty"},
		{"no message", agent.Request{}, "message is empty"},
		{"empty messages", agent.Request{Messages: []llm.Message{}}, "messages is empty"},
		{"ends with the assistant", agent.Request{Messages: []llm.Message{llm.UserText("hi"), llm.AssistantText("hello")}}, `ends with a "assistant" message`},
		{"only a system message", agent.Request{Messages: []llm.Message{sysText("be brief")}}, `ends with a "system" message`},
		{"message differs", agent.Request{Message: "new", Messages: []llm.Message{llm.UserText("old")}}, "message differs from the last user message"},
		{"message after tool results", agent.Request{Message: "hi", Messages: []llm.Message{
			llm.UserText("hi"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "weather"}}}, llm.ToolResult(llm.ToolCall{ID: "1", Name: "weather"}, "sunny", false),
		}}, "ends with tool results"},
		{"client tools in a stateful run", agent.Request{Message: "hi", ClientTools: []llm.ToolSpec{weather}}, "client tools need a stateless run"},
		{"client tool twice", agent.Request{Messages: []llm.Message{llm.UserText("hi")}, ClientTools: []llm.ToolSpec{weather, weather}}, `"weather" is given twice`},
		{"client tool without name", agent.Request{Messages: []llm.Message{llm.UserText("hi")}, ClientTools: []llm.ToolSpec{{}}}, "client tool 0 has no name"},
		{"client tool named like a catalogue tool", agent.Request{Messages: []llm.Message{llm.UserText("hi")}, ClientTools: []llm.ToolSpec{{Name: "echo"}}}, `client tool "echo" has the name of a Switchboard tool`},
		{"client tool named like a management tool", agent.Request{Messages: []llm.Message{llm.UserText("hi")}, ClientTools: []llm.ToolSpec{{Name: "list_agents"}}}, `client tool "list_agents"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := llmtest.NewFakeProvider(say("should not be asked"))
			e := newEnv(t, fake, nil)
			e.setTools(tool("echo", readOnly, nil))
			req := tc.req
			if req.ConversationID == "-" {
				req.ConversationID = ""
			} else {
				req.ConversationID = "c1"
			}
			var evs []agent.Event
			var err error
			for ev, rerr := range e.rt.Run(t.Context(), &req) {
				if rerr != nil {
					err = rerr
					break
				}
				evs = append(evs, ev)
			}
			if !errors.Is(err, agent.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrInvalidRequest saying %q", err, tc.want)
			}
			if len(evs) != 0 || len(fake.Requests()) != 0 {
				t.Errorf("the run went ahead: %d events, %d model requests", len(evs), len(fake.Requests()))
			}
		})
	}
}
