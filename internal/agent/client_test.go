package agent_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

var weatherSpec = llm.ToolSpec{Name: "weather", Description: "the weather in a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

// eventLine renders an event for order checks: kind, and for calls the
// call id, server and outcome.
func eventLine(ev agent.Event) string {
	s := string(ev.Kind)
	if ev.Call != nil {
		s += " " + ev.Call.ID + "@" + ev.Call.Server
	}
	if ev.Result != nil {
		s += " " + string(ev.Result.Outcome)
	}
	if ev.Done != nil {
		s += " " + string(ev.Done.StopReason)
	}
	return s
}

// TestClientToolCallsEndTheRun checks that a step calling client tools
// yields a client tool_start per client call, leaves the catalogue calls
// of that step unrun, and ends with StopClientTools and the client calls.
func TestClientToolCallsEndTheRun(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.FakeReply
		want       []string
		wantClient []string
	}{
		{"client call alone", calls("w1", "weather", `{"city":"Oslo"}`), []string{"tool_start w1@client", "done tool_calls"}, []string{"w1"}},
		{"two client calls", calls("w1", "weather", `{"city":"Oslo"}`, "w2", "weather", `{"city":"Rome"}`), []string{"tool_start w1@client", "tool_start w2@client", "done tool_calls"}, []string{"w1", "w2"}},
		{"with a catalogue call", calls("e1", "echo", `{}`, "w1", "weather", `{"city":"Oslo"}`), []string{"tool_start w1@client", "tool_end e1@builtin cancelled", "done tool_calls"}, []string{"w1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			fake := llmtest.NewFakeProvider(tc.reply)
			e := newEnv(t, fake, nil)
			e.setTools(tool("echo", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
				ran.Add(1)
				return tools.TextResult("echoed"), nil
			}))
			evs := e.mustRun(t, &agent.Request{Agent: "", Messages: []llm.Message{llm.UserText("weather?")}, ClientTools: []llm.ToolSpec{weatherSpec}})

			var got []string
			for _, ev := range evs {
				got = append(got, eventLine(ev))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			d := last(evs).Done
			var ids []string
			for _, c := range d.ClientCalls {
				ids = append(ids, c.ID)
			}
			if diff := cmp.Diff(tc.wantClient, ids); diff != "" {
				t.Errorf("client calls mismatch (-want +got):\n%s", diff)
			}
			if d.ToolCalls != 0 || ran.Load() != 0 {
				t.Errorf("catalogue calls ran: Done.ToolCalls %d, ran %d", d.ToolCalls, ran.Load())
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("the model was asked %d times, want once", n)
			}
			offered := fake.Requests()[0].Tools
			if diff := cmp.Diff([]string{"echo", "assign_server", "list_agents", "list_servers", "remove_server", "weather"}, toolNames(offered)); diff != "" {
				t.Errorf("offered tools mismatch (-want +got):\n%s", diff)
			}
			if w := offered[len(offered)-1]; w.Description != weatherSpec.Description || string(w.Parameters) != string(weatherSpec.Parameters) {
				t.Errorf("client tool offered as %+v", w)
			}
		})
	}
}

// TestClientToolRoundTrip checks the second half: the client sends the
// conversation back with its results and the model answers from them.
func TestClientToolRoundTrip(t *testing.T) {
	fake := llmtest.NewFakeProvider(calls("w1", "weather", `{"city":"Oslo"}`), say("Sunny in Oslo."))
	e := newEnv(t, fake, nil)
	msgs := []llm.Message{llm.UserText("weather in Oslo?")}
	evs := e.mustRun(t, &agent.Request{Messages: msgs, ClientTools: []llm.ToolSpec{{Name: "weather"}}})
	d := last(evs).Done
	if d.StopReason != agent.StopClientTools || len(d.ClientCalls) != 1 {
		t.Fatalf("done = %+v", d)
	}
	if got := string(fake.Requests()[0].Tools[len(fake.Requests()[0].Tools)-1].Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("a client tool without parameters is offered with %s", got)
	}

	// The client runs the call and sends everything back.
	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: d.ClientCalls}, llm.ToolResult(d.ClientCalls[0], "sunny", false))
	evs = e.mustRun(t, &agent.Request{Messages: msgs, ClientTools: []llm.ToolSpec{{Name: "weather"}}})
	if d := last(evs).Done; d.StopReason != agent.StopEndTurn || d.ClientCalls != nil || text(evs) != "Sunny in Oslo." {
		t.Errorf("second run: done %+v, text %q", d, text(evs))
	}
	want := []string{"user:weather in Oslo?", "assistant: call w1 weather", "tool:sunny for w1"}
	if diff := cmp.Diff(want, transcript(fake.Requests()[1].Messages)); diff != "" {
		t.Errorf("second model request mismatch (-want +got):\n%s", diff)
	}
}

// TestClientToolsStayWithTheAgentSpokenTo checks that an agent the turn is
// handed to is not offered the client's tools, and that a client tool may
// share the name of a catalogue tool the request may not use.
func TestClientToolsStayWithTheAgentSpokenTo(t *testing.T) {
	main := llmtest.NewFakeProvider()
	bob := llmtest.NewFakeProvider(say("No new mail."))
	e := handoffEnv(t, main, bob, nil)
	evs := e.mustRun(t, &agent.Request{
		Messages:    []llm.Message{llm.UserText("@bob any mail?")},
		ClientTools: []llm.ToolSpec{weatherSpec, {Name: "echo"}},
		Permissions: e.except("echo"),
	})
	if d := last(evs); d.Kind != agent.EventDone || d.Done.StopReason != agent.StopEndTurn {
		t.Fatalf("last event = %+v", d)
	}
	if diff := cmp.Diff([]string{"mail__read"}, toolNames(bob.Requests()[0].Tools)); diff != "" {
		t.Errorf("bob's tools mismatch (-want +got):\n%s", diff)
	}
}
