package chat

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

var ctrlO = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}

// TestTUISummaryCollapsed: a stored summary of the earlier conversation is
// one collapsed line, not a message of the person's; ctrl+o shows its text
// and hides it again; a summary written during a turn is shown the same
// way, after the note saying why.
func TestTUISummaryCollapsed(t *testing.T) {
	fb := &fakeBackend{history: map[string][]store.Message{"c1": {
		{Message: llm.UserText("first question"), Seq: 1},
		{Message: llm.AssistantText("first answer"), Seq: 2},
		{Message: llm.UserText("The person asked about pelicans."), Seq: 3, SummaryOf: 2},
	}}}
	h := newHarness(t, fb, &Options{ConversationID: "c1"})
	h.pumpUntil("summary of messages 1–2")
	v := h.view()
	if strings.Contains(v, "pelicans") || strings.Contains(v, "› The person asked") || !strings.Contains(v, "▸ summary of messages 1–2") {
		t.Fatalf("the stored summary is not one collapsed line:\n%s", v)
	}
	h.send(ctrlO)
	if v := h.view(); !strings.Contains(v, "▾ summary of messages 1–2") || !strings.Contains(v, "The person asked about pelicans.") {
		t.Fatalf("ctrl+o did not show the summary:\n%s", v)
	}
	h.send(ctrlO)
	if v := h.view(); strings.Contains(v, "pelicans") {
		t.Fatalf("ctrl+o again did not hide the summary:\n%s", v)
	}

	h.typeLine("go on")
	h.event(agent.Event{Kind: agent.EventContext, Text: "the model summarised it", Summary: "Now about herons."}, "summary of the conversation so far")
	if v := h.view(); strings.Contains(v, "herons") || !strings.Contains(v, "· the model summarised it") {
		t.Fatalf("the live summary is not collapsed after its note:\n%s", v)
	}
	h.send(ctrlO)
	if v := h.view(); !strings.Contains(v, "Now about herons.") || !strings.Contains(v, "pelicans") {
		t.Fatalf("ctrl+o did not show both summaries:\n%s", v)
	}
	h.event(done(), "herons")
	close(h.feed)
}

// modelBackend is a fakeBackend that lists models for /model.
type modelBackend struct {
	*fakeBackend
	models []string
}

func (b *modelBackend) Models() []string { return b.models }

// TestTUIModelPicker: /model lists the models the backend offers, /model
// NAME chooses one for the next turns and shows it in the status line, an
// unknown name is refused, and /model - goes back to the agent's model.
func TestTUIModelPicker(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarnessFor(t, &modelBackend{fakeBackend: fb, models: []string{"big", "small"}}, nil)
	fb.run = h.run
	h.typeLine("/model")
	h.pumpUntil("MODEL")
	if v := h.view(); !strings.Contains(v, "big") || !strings.Contains(v, "small") {
		t.Fatalf("/model did not list the models:\n%s", v)
	}
	h.typeLine("/model small")
	h.pumpUntil("model: small")
	if v := h.view(); !strings.Contains(v, "assistant · small · conversation") {
		t.Errorf("the status line does not show the model:\n%s", v)
	}
	h.typeLine("/model huge")
	h.pumpUntil(`no model "huge"`)
	h.typeLine("hello")
	h.pumpUntil("› hello")
	h.event(done(), "› hello")
	close(h.feed)
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if _, reqs := fb.recorded(); len(reqs) != 1 || reqs[0].Model != "small" {
		t.Errorf("the turn's requests = %+v, want model small", reqs)
	}
	h.typeLine("/model -")
	h.pumpUntil("model: the agent's own")
	if h.m.opts.Model != "" {
		t.Errorf("model after /model - = %q", h.m.opts.Model)
	}

	// A backend that cannot list models says so.
	h2 := newHarness(t, &fakeBackend{}, nil)
	h2.typeLine("/model")
	h2.pumpUntil("cannot choose models")
	close(h2.feed)
}
