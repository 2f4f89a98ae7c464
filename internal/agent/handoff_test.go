package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// handoffEnv has an assistant on model "main" and agent bob on model
// "bobm" with the mail server's tools.
func handoffEnv(t *testing.T, main, bob *llmtest.FakeProvider, bobServers []string) *env {
	t.Helper()
	e := newEnv(t, main, nil)
	e.models["bobm"] = bob
	e.agents.agents["bob"] = store.Agent{Name: "bob", Model: "bobm", Prompt: "You handle e-mail.", Description: "e-mail", Servers: bobServers}
	e.reg.Set(tools.Source{Kind: tools.KindOpenAPI, Server: "mail"}, []tools.Tool{tool("read", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		return tools.TextResult("2 new mails"), nil
	})})
	e.setTools(tool("echo", readOnly, nil))
	return e
}

func TestMentionHandsOff(t *testing.T) {
	main := llmtest.NewFakeProvider(say("Bob said you have mail."))
	bob := llmtest.NewFakeProvider(calls("b1", "mail__read", `{}`), say("You have 2 new mails."))
	e := handoffEnv(t, main, bob, []string{"mail"})
	evs := e.mustRun(t, &agent.Request{Message: "@bob check my emails"})

	if n := len(main.Requests()); n != 0 {
		t.Errorf("the assistant's model was asked %d times; bob answers alone", n)
	}
	var got []string
	for _, ev := range evs {
		s := string(ev.Kind) + "/" + ev.Agent
		if ev.Handoff != nil {
			s += "/" + ev.Handoff.From + ">" + ev.Handoff.To
		}
		got = append(got, s)
	}
	want := []string{"handoff//>bob", "tool_start/bob", "tool_end/bob", "text/bob", "handoff/bob/bob>", "done/bob"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	breq := bob.Requests()[0]
	if breq.System != "You handle e-mail." || len(breq.Tools) != 1 || breq.Tools[0].Name != "mail__read" {
		t.Errorf("bob's request: system %q, tools %+v", breq.System, breq.Tools)
	}
	if recs := e.audit.all(); len(recs) != 1 || recs[0].Rec.Agent != "bob" || recs[0].Rec.Server != "mail" {
		t.Errorf("audit = %+v", recs)
	}

	// The assistant's next turn sees bob's answer as text, without bob's
	// tool traffic.
	main.Push(say("ok"))
	e.mustRun(t, &agent.Request{Message: "thanks"})
	var seen []string
	for _, m := range main.Requests()[0].Messages {
		seen = append(seen, string(m.Role)+":"+m.Text())
	}
	wantSeen := []string{"user:@bob check my emails", "assistant:You have 2 new mails.", "user:thanks"}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Errorf("assistant's context mismatch (-want +got):\n%s", diff)
	}
}

func TestNotAMention(t *testing.T) {
	for _, msg := range []string{"mail test@example.com please", "@nobody hello", "ask @bob.example.org"} {
		main := llmtest.NewFakeProvider(say("done"))
		bob := llmtest.NewFakeProvider()
		e := handoffEnv(t, main, bob, nil)
		evs := e.mustRun(t, &agent.Request{Message: msg})
		if len(bob.Requests()) != 0 || len(find(evs, agent.EventHandoff)) != 0 {
			t.Errorf("%q was handed to bob", msg)
		}
		if text(evs) != "done" {
			t.Errorf("%q: answer %q", msg, text(evs))
		}
	}
}

// TestAssistantHandsItsAnswerOn: the assistant's model answers with a
// mention; bob gets the instruction, and bob's own mention is not followed.
func TestAssistantHandsItsAnswerOn(t *testing.T) {
	main := llmtest.NewFakeProvider(say("@bob please send a test email"))
	bob := llmtest.NewFakeProvider(say("Sent. @bob is done; @main may check."))
	e := handoffEnv(t, main, bob, []string{"mail"})
	e.agents.agents["main"] = store.Agent{Name: "main", Model: "main"}
	evs := e.mustRun(t, &agent.Request{Message: "send a test email"})

	if len(bob.Requests()) != 1 || len(main.Requests()) != 1 {
		t.Fatalf("requests: main %d, bob %d", len(main.Requests()), len(bob.Requests()))
	}
	msgs := bob.Requests()[0].Messages
	lastMsg := msgs[len(msgs)-1]
	if lastMsg.Role != llm.RoleUser || !strings.Contains(lastMsg.Text(), "asks you: @bob please send a test email") {
		t.Errorf("bob's last message = %+v", lastMsg)
	}
	if got := text(evs); got != "@bob please send a test emailSent. @bob is done; @main may check." {
		t.Errorf("text = %q", got)
	}
	if d := last(evs); d.Kind != agent.EventDone || d.Agent != "bob" {
		t.Errorf("last event = %+v", d)
	}
}

// TestAssignServerLive gives bob a server through the assistant's tool;
// bob's next turn has the tools, without restarting anything.
func TestAssignServerLive(t *testing.T) {
	main := llmtest.NewFakeProvider(
		calls("a1", "list_servers", `{}`, "a2", "assign_server", `{"agent":"bob","server":"mail"}`),
		say("Bob now has e-mail access."),
	)
	bob := llmtest.NewFakeProvider(say("I have no tools."), say("You have mail."))
	e := handoffEnv(t, main, bob, []string{})

	e.mustRun(t, &agent.Request{Message: "@bob check mail"})
	if tl := bob.Requests()[0].Tools; len(tl) != 0 {
		t.Fatalf("bob had tools before the assignment: %+v", tl)
	}
	evs := e.runDeciding(t, &agent.Request{Message: "give bob email access", Role: store.RoleAdmin}, func(a *store.Approval) *agent.Decision {
		if a.Tool != "assign_server" {
			t.Errorf("approval for %s", a.Tool)
		}
		return &agent.Decision{Kind: agent.ApproveOnce}
	})
	if len(find(evs, agent.EventApproval)) != 1 {
		t.Errorf("assign_server was not put to approval: %v", kinds(evs))
	}
	res := toolMessages(main.Requests(), 1)
	if len(res) != 2 || !strings.Contains(res[0].Text(), "mail (1 tools)") || !strings.Contains(res[1].Text(), "@bob now has the tools of mail") {
		t.Errorf("tool results = %+v", res)
	}
	e.mustRun(t, &agent.Request{Message: "@bob check mail"})
	if tl := bob.Requests()[1].Tools; len(tl) != 1 || tl[0].Name != "mail__read" {
		t.Errorf("bob's tools after the assignment = %+v", tl)
	}
}

// TestAgentChangesApplyNextTurn edits bob between turns: the next turn
// uses the new prompt and model without restarting anything.
func TestAgentChangesApplyNextTurn(t *testing.T) {
	bob := llmtest.NewFakeProvider(say("v1 here"))
	other := llmtest.NewFakeProvider(say("v2 here"))
	e := handoffEnv(t, llmtest.NewFakeProvider(), bob, nil)
	e.models["other"] = other
	e.mustRun(t, &agent.Request{Message: "hi", Agent: "bob"})

	e.agents.mu.Lock()
	e.agents.agents["bob"] = store.Agent{Name: "bob", Model: "other", Prompt: "v2 prompt"}
	e.agents.mu.Unlock()
	evs := e.mustRun(t, &agent.Request{Message: "hi again", Agent: "bob"})
	if text(evs) != "v2 here" || len(other.Requests()) != 1 || other.Requests()[0].System != "v2 prompt" {
		t.Errorf("second turn: text %q, requests %+v", text(evs), other.Requests())
	}
	// bob's context holds his own earlier answer.
	if got := allText(other.Requests()[0].Messages); !strings.Contains(got, "v1 here") {
		t.Errorf("bob's context:\n%s", got)
	}
}

// TestModelOverride runs one turn on another model than the agent's.
func TestModelOverride(t *testing.T) {
	main := llmtest.NewFakeProvider()
	other := llmtest.NewFakeProvider(say("from other"))
	e := newEnv(t, main, nil)
	e.models["other"] = other
	if evs := e.mustRun(t, &agent.Request{Message: "hi", Model: "other"}); text(evs) != "from other" || len(main.Requests()) != 0 {
		t.Errorf("text %q, main asked %d times", text(evs), len(main.Requests()))
	}
	if _, err := e.run(t, &agent.Request{Message: "hi", Model: "missing"}); err == nil || !strings.Contains(err.Error(), `resolving model "missing"`) {
		t.Errorf("unknown model: err = %v", err)
	}
}
