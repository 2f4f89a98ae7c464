package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// TestLongConversationIsSummarised checks that when earlier turns no
// longer fit the model's window, the model summarises them, the summary is
// stored marked with what it covers and announced with its text, and the
// model request carries the summary instead of the turns; the next turn
// reuses the summary rather than writing another.
func TestLongConversationIsSummarised(t *testing.T) {
	db, conv := sqliteConversation(t)
	long := strings.Repeat("a long first answer ", 5) // 100 characters
	fake := llmtest.NewFakeProvider(say(long), say("S1"), say("second answer"), say("third"))
	e := newEnv(t, fake, func(o *envOptions) { o.History = db })
	// Budget 90 characters: the first turn plus a new message do not fit.
	window := 60
	e.resolve = func(string) (agent.Model, error) {
		return agent.Model{Name: "small", ID: "small", Provider: fake, ContextWindow: window}, nil
	}
	e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "a first question"})
	evs := e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "second"})

	notes := find(evs, agent.EventContext)
	if len(notes) != 1 || notes[0].Summary != "S1" || !strings.Contains(notes[0].Text, "summarised") {
		t.Fatalf("context events = %+v, want one announcing the summary S1", notes)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3 (answer, summary, answer)", len(reqs))
	}
	if !strings.Contains(reqs[1].System, "summary") || !strings.Contains(reqs[1].Messages[0].Text(), "user: a first question") ||
		!strings.Contains(reqs[1].Messages[0].Text(), "assistant: "+long) {
		t.Errorf("summary request = %+v, want the earlier turn as a transcript", reqs[1])
	}
	var got []string
	for _, m := range reqs[2].Messages {
		got = append(got, string(m.Role)+": "+m.Text())
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "earlier conversation]\nS1") || got[1] != "user: second" {
		t.Errorf("answer request messages = %q, want the summary then the new message", got)
	}
	hist, err := db.ListMessages(context.Background(), conv.ID, store.MessageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var sums []store.Message
	for _, m := range hist {
		if m.SummaryOf > 0 {
			sums = append(sums, m)
		}
	}
	if len(hist) != 5 || len(sums) != 1 || sums[0].SummaryOf != 2 || sums[0].Text() != "S1" {
		t.Fatalf("stored history has %d messages and summaries %+v; want all 5 kept and one summary of seq 1-2", len(hist), sums)
	}

	// With room for more, the third turn starts from the summary and
	// writes no new one.
	window = 100
	evs = e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "3rd"})
	if n := find(evs, agent.EventContext); len(n) != 0 && n[0].Summary != "" {
		t.Errorf("third turn summarised again: %+v", n)
	}
	last := fake.Requests()[3].Messages
	if len(last) == 0 || !strings.Contains(last[0].Text(), "S1") {
		t.Errorf("third request = %+v, want it to start from the summary", last)
	}
}

// TestSummaryFailureFallsBackToLeavingOut checks a model that cannot
// summarise leaves the turn working: older messages are left out, and
// the person is told.
func TestSummaryFailureFallsBackToLeavingOut(t *testing.T) {
	long := strings.Repeat("x", 100)
	fake := llmtest.NewFakeProvider(say(long), say(""), say("ok"))
	db, conv := sqliteConversation(t)
	e := newEnv(t, fake, func(o *envOptions) { o.History = db })
	e.resolve = func(string) (agent.Model, error) {
		return agent.Model{Name: "small", ID: "small", Provider: fake, ContextWindow: 60}, nil
	}
	e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "first"})
	evs := e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "second"})
	notes := find(evs, agent.EventContext)
	if len(notes) != 1 || notes[0].Summary != "" || !strings.Contains(notes[0].Text, "left out") {
		t.Fatalf("context events = %+v, want one saying messages were left out", notes)
	}
	if got := text(evs); got != "ok" {
		t.Errorf("answer = %q, events %+v", got, evs)
	}
	if reqs := fake.Requests(); len(reqs) != 3 || reqs[1].System == "" {
		t.Errorf("the model got %d requests, want the failed summary request between the answers", len(reqs))
	}
}

// sqliteConversation opens a store that numbers messages, as the
// summaries need, with one conversation in it.
func sqliteConversation(t *testing.T) (*sqlite.DB, store.Conversation) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), t.TempDir()+"/s.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	conv, err := db.CreateConversation(context.Background(), store.Conversation{Title: "long"})
	if err != nil {
		t.Fatal(err)
	}
	return db, conv
}
