package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// bigCatalogue returns 30 filler tools and three that requests below need:
// with the assistant's four own tools, more than a budget of 10 offers.
func bigCatalogue() []tools.Tool {
	subjects := []string{"invoice", "ticket", "playlist", "recipe", "flight", "parcel", "repository", "spreadsheet", "calendar", "contact"}
	verbs := []string{"archive", "rename", "export"}
	var ts []tools.Tool
	for _, s := range subjects {
		for _, v := range verbs {
			ts = append(ts, &tools.Func{Spec: tools.Info{
				Name: v + "_" + s, Description: fmt.Sprintf("%s a %s by its id", v, s),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`),
				Annotations: readOnly,
			}, Run: echo})
		}
	}
	ts = append(ts,
		&tools.Func{
			Spec: tools.Info{
				Name: "weather_forecast", Description: "Get the weather forecast (rain, temperature, wind) for a city",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`), Annotations: readOnly,
			},
			Run: func(context.Context, *tools.CallRequest) (*tools.Result, error) {
				return tools.TextResult("Oslo: rain, 7°C"), nil
			},
		},
		&tools.Func{Spec: tools.Info{
			Name: "weather_admin_reset", Description: "Reset the weather station's stored forecast data",
			InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: readOnly,
		}, Run: echo},
	)
	return ts
}

func specNames(specs []llm.ToolSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// convStore is the part of a store the test below uses.
type convStore interface {
	agent.History
	CreateConversation(ctx context.Context, c store.Conversation) (store.Conversation, error)
}

// TestFindToolsNative: over budget, the model is offered part of the
// catalogue and find_tools; what it finds it calls in the same turn, and
// a second runtime on the same database (another replica) still offers it
// on the next turn. On SQLite, and on PostgreSQL when it can be reached.
func TestFindToolsNative(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testFindToolsNative(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), storetest.PostgresSchema(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testFindToolsNative(t, db)
	})
}

func testFindToolsNative(t *testing.T, db convStore) {
	conv, err := db.CreateConversation(t.Context(), store.Conversation{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	fake := llmtest.NewFakeProvider(
		calls("f1", agent.FindToolsName, `{"query": "weather forecast"}`),
		calls("w1", "weather_forecast", `{"city": "Oslo"}`),
		say("Rain in Oslo, 7°C."),
	)
	e := newEnv(t, fake, func(o *envOptions) { o.ToolBudget = 10; o.History = db })
	e.setTools(bigCatalogue()...)
	// The user's permissions leave out weather_admin_reset.
	permit := e.except("weather_admin_reset")
	evs := e.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "Can you help me with something?", Permissions: permit})

	reqs := fake.Requests()
	first := specNames(reqs[0].Tools)
	if len(first) != 10 || first[len(first)-1] != agent.FindToolsName {
		t.Fatalf("first request offers %v; want 9 tools and find_tools", first)
	}
	if slices.Contains(first, "weather_forecast") {
		t.Fatalf("the first request already offers weather_forecast: %v; the test needs a request that does not", first)
	}
	if slices.Contains(first, "weather_admin_reset") {
		t.Errorf("offered a tool the user may not call: %v", first)
	}
	found := find(evs, agent.EventToolEnd)
	if len(found) != 2 || found[0].Result.IsError || !strings.Contains(found[0].Result.Text, "weather_forecast") {
		t.Fatalf("tool ends = %+v", found)
	}
	if !strings.Contains(found[0].Result.Text, "  arguments: city string\n") {
		t.Errorf("find_tools does not give the found tool's arguments:\n%s", found[0].Result.Text)
	}
	if strings.Contains(found[0].Result.Text, "weather_admin_reset") {
		t.Errorf("find_tools showed a tool the user may not call:\n%s", found[0].Result.Text)
	}
	if !slices.Contains(specNames(reqs[1].Tools), "weather_forecast") {
		t.Errorf("after find_tools the model is offered %v", specNames(reqs[1].Tools))
	}
	if found[1].Result.IsError || found[1].Result.Text != "Oslo: rain, 7°C" {
		t.Errorf("weather_forecast result = %+v", found[1].Result)
	}

	// Another runtime on the same store: the next turn offers the loaded
	// tool at once, though the request does not ask for it.
	fake2 := llmtest.NewFakeProvider(say("You're welcome."))
	e2 := newEnv(t, fake2, func(o *envOptions) { o.ToolBudget = 10; o.History = db })
	e2.setTools(bigCatalogue()...)
	e2.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "thanks!", Permissions: permit})
	if got := specNames(fake2.Requests()[0].Tools); !slices.Contains(got, "weather_forecast") || len(got) != 10 {
		t.Errorf("reloaded conversation offers %v; want weather_forecast among 10", got)
	}

	// Once the user may no longer call it, the history offers it no more,
	// and a call by name is refused.
	fake3 := llmtest.NewFakeProvider(calls("w2", "weather_forecast", `{"city": "Oslo"}`), say("I cannot check the weather."))
	e3 := newEnv(t, fake3, func(o *envOptions) { o.ToolBudget = 10; o.History = db })
	e3.setTools(bigCatalogue()...)
	narrowed := e3.except("weather_admin_reset", "weather_forecast")
	evs = e3.mustRun(t, &agent.Request{ConversationID: conv.ID, Message: "and in Bergen?", Permissions: narrowed})
	if got := specNames(fake3.Requests()[0].Tools); slices.Contains(got, "weather_forecast") {
		t.Errorf("a narrowed user is offered a tool it may no longer call: %v", got)
	}
	if ends := find(evs, agent.EventToolEnd); len(ends) != 1 || !ends[0].Result.IsError {
		t.Errorf("a call to the forbidden tool = %+v", ends)
	}
}

// TestFindToolsPermission tries to reach a forbidden tool through
// find_tools: naming it outright, then through a history that claims it
// was loaded. Neither offers it, and calling it is refused.
func TestFindToolsPermission(t *testing.T) {
	fake := llmtest.NewFakeProvider(
		calls("f1", agent.FindToolsName, `{"query": "weather_admin_reset reset the weather station stored forecast data", "limit": 10}`),
		say("done"),
		say("ok"),
	)
	e := newEnv(t, fake, func(o *envOptions) { o.ToolBudget = 10 })
	e.setTools(bigCatalogue()...)
	permit := e.except("weather_admin_reset")
	evs := e.mustRun(t, &agent.Request{Message: "reset the weather station", Permissions: permit})
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 1 || strings.Contains(ends[0].Result.Text, "weather_admin_reset") || !strings.Contains(ends[0].Result.Text, "weather_forecast") {
		t.Fatalf("find_tools answered %+v", ends)
	}
	for i, r := range fake.Requests() {
		if slices.Contains(specNames(r.Tools), "weather_admin_reset") {
			t.Errorf("request %d offers the forbidden tool", i)
		}
	}
	// The same conversation, for a user who may call it, does see it.
	e.mustRun(t, &agent.Request{Message: "weather_admin_reset please"})
	if got := specNames(fake.Requests()[2].Tools); !slices.Contains(got, "weather_admin_reset") {
		t.Errorf("a permitted user is not offered the tool it named: %v", got)
	}
}

// TestFindToolsBadArguments: a find_tools call without a query is a tool
// error that says what to send, and the run goes on.
func TestFindToolsBadArguments(t *testing.T) {
	fake := llmtest.NewFakeProvider(
		calls("f1", agent.FindToolsName, `{"q": 1}`),
		calls("f2", agent.FindToolsName, `not json`),
		calls("f3", agent.FindToolsName, `{"query": "zzqx"}`),
		say("I could not find a tool."),
	)
	e := newEnv(t, fake, func(o *envOptions) { o.ToolBudget = 10 })
	e.setTools(bigCatalogue()...)
	evs := e.mustRun(t, &agent.Request{Message: "hello"})
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 3 || !ends[0].Result.IsError || !ends[1].Result.IsError || !strings.Contains(ends[0].Result.Text, `"query"`) {
		t.Fatalf("ends = %+v", ends)
	}
	if ends[2].Result.IsError || !strings.Contains(ends[2].Result.Text, "No tool matches") {
		t.Errorf("an unmatched search answered %+v", ends[2].Result)
	}
	if got := text(evs); got != "I could not find a tool." {
		t.Errorf("answer = %q", got)
	}
}

// TestToolBudgetOff: a negative budget offers every tool, and within the
// budget nothing changes.
func TestToolBudgetOff(t *testing.T) {
	for _, tc := range []struct {
		budget, want int
	}{{-1, 36}, {40, 36}, {0, 36}} {
		fake := llmtest.NewFakeProvider(say("hi"))
		e := newEnv(t, fake, func(o *envOptions) { o.ToolBudget = tc.budget })
		e.setTools(bigCatalogue()...)
		e.mustRun(t, &agent.Request{Message: "hello"})
		if got := specNames(fake.Requests()[0].Tools); len(got) != tc.want || slices.Contains(got, agent.FindToolsName) {
			t.Errorf("budget %d offers %d tools: %v", tc.budget, len(got), got)
		}
	}
}

// TestFindToolsTextMode: the text protocol gets find_tools like any tool;
// the model finds a tool in one step and calls it in the next.
func TestFindToolsTextMode(t *testing.T) {
	code := func(name, args string) llmtest.FakeReply {
		return say(`<tool_code>{"tool_name": "` + name + `", "arguments": ` + args + `}</tool_code>`)
	}
	fake := llmtest.NewFakeProvider(
		code(agent.FindToolsName, `{"query": "weather forecast"}`),
		code("weather_forecast", `{"city": "Oslo"}`),
		say("Rain in Oslo."),
	)
	wrapped := textcall.Wrap(fake, &textcall.Options{Mode: textcall.ModeText, Budget: 600, Pinned: []string{agent.FindToolsName}})
	e := newEnv(t, fake, func(o *envOptions) { o.ToolBudget = 10; o.Assistant.Router = string(agent.RouterOff) })
	e.resolve = func(string) (agent.Model, error) {
		return agent.Model{Name: "main", Provider: wrapped, ToolMode: agent.ToolModeText}, nil
	}
	e.setTools(bigCatalogue()...)
	evs := e.mustRun(t, &agent.Request{Message: "Can you help me with something?"})
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 2 || ends[1].Call.Name != "weather_forecast" || ends[1].Result.IsError {
		t.Fatalf("ends = %+v", ends)
	}
	reqs := fake.Requests()
	if strings.Contains(reqs[0].System, "Get the weather forecast") {
		t.Errorf("the first manifest already describes weather_forecast")
	}
	if !strings.Contains(reqs[0].System, agent.FindToolsName) {
		t.Errorf("the manifest does not describe find_tools:\n%s", reqs[0].System)
	}
	if !strings.Contains(reqs[1].System, "Get the weather forecast") {
		t.Errorf("the second manifest does not describe the found tool:\n%s", reqs[1].System)
	}
}
