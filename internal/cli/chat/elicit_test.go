package chat

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

const askSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","description":"what people call you"},
	"age":{"type":"integer","minimum":1,"default":30},
	"agree":{"type":"boolean","title":"Agree"},
	"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
	"tools":{"type":"array","items":{"type":"string","enum":["saw","drill"]}}},"required":["name"]}`

func question(id, mode, schema string) agent.Event {
	args, _ := json.Marshal(map[string]any{"message": "Who are you?", "mode": mode, "schema": json.RawMessage(schema), "url": "https://login.example.com/x?y=1"})
	return agent.Event{Kind: agent.EventApproval, Approval: &store.Approval{ID: id, Tool: agent.ElicitationTool, Server: "everything", Arguments: args, State: store.ApprovalPending}}
}

// TestTUIElicitForm: the form is asked field by field (text typed, the
// default shown, a boolean as y/n, a choice and a multi-select from a
// list) and the values go to Decide as an accepted answer.
func TestTUIElicitForm(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, &Options{Yes: true}) // --yes does not answer a question
	h.typeLine("go")
	h.event(question("q1", "form", askSchema), "everything asks: Who are you?")
	if v := h.view(); !strings.Contains(v, "[1/5] Name * — what people call you") {
		t.Fatalf("first field not shown:\n%s", v)
	}
	h.key("enter") // a required field left empty is asked again
	h.pumpUntil("Name is required")
	h.typeLine("Ada")
	h.pumpUntil("Name: Ada")
	if !strings.Contains(h.view(), "[2/5] age") || h.m.input.Value() != "30" {
		t.Fatalf("age not asked with its default 30 (input %q):\n%s", h.m.input.Value(), h.view())
	}
	h.key("enter")
	h.pumpUntil("age: 30")
	h.key("y")
	h.pumpUntil("Agree: true")
	if !strings.Contains(h.view(), "> Red") || !strings.Contains(h.view(), "  Green") {
		t.Fatalf("choices not listed:\n%s", h.view())
	}
	h.key("down")
	h.key("enter")
	h.pumpUntil("color: g")
	h.key(" ")
	h.key("down")
	h.key(" ")
	h.pump("both picked", func(v string) bool { return strings.Contains(v, "[x] saw") && strings.Contains(v, "[x] drill") })
	h.key("enter")
	h.pumpUntil("enter send")
	h.key("enter")
	h.pumpUntil("answered the question of everything")
	got, _ := fb.recorded()
	want := []decision{{ID: "q1", Decision: agent.Decision{
		Kind: agent.ApproveOnce, By: "switchboard chat",
		Content: map[string]any{"name": "Ada", "age": 30.0, "agree": true, "color": "g", "tools": []any{"saw", "drill"}},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide calls mismatch (-want +got):\n%s", diff)
	}
	close(h.feed)
}

// TestTUIElicitDeclineCancelURL: ctrl+d declines and esc cancels, as two
// different answers; a URL question prints the URL and y says done.
func TestTUIElicitDeclineCancelURL(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, nil)
	h.typeLine("go")
	h.event(question("q1", "form", askSchema), "everything asks")
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	h.pumpUntil("declined the question of everything")
	h.event(question("q2", "form", askSchema), "[1/5] Name")
	h.typeLine("Ada")
	h.key("esc")
	h.pumpUntil("cancelled the question of everything")
	h.event(question("q3", "url", "null"), "open this page on login.example.com yourself: https://login.example.com/x?y=1")
	h.key("y")
	h.pumpUntil("answered the question of everything")
	got, _ := fb.recorded()
	by := "switchboard chat"
	want := []decision{
		{ID: "q1", Decision: agent.Decision{Kind: agent.Deny, By: by}},
		{ID: "q2", Decision: agent.Decision{Kind: agent.Cancel, By: by}},
		{ID: "q3", Decision: agent.Decision{Kind: agent.ApproveOnce, By: by}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide calls mismatch (-want +got):\n%s", diff)
	}
	close(h.feed)
}
