package agent_test

import (
	"context"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// readingRouter answers a router request from the text it is shown alone:
// yes when that text asks to read, write, open or list something (in
// words or as a tool call it can see), no otherwise. It knows nothing of
// the test.
func readingRouter(req *llm.Request) string {
	var words []string
	for _, m := range req.Messages {
		words = append(words, strings.FieldsFunc(strings.ToLower(m.Text()), func(r rune) bool {
			return r < 'a' || r > 'z'
		})...)
	}
	for _, w := range words {
		switch w {
		case "read", "write", "open", "list":
			return "yes"
		}
	}
	return "no"
}

// isRouterRequest reports whether req is the one-word pre-check: the
// model tells it by its instructions, as a real model would.
func isRouterRequest(req *llm.Request) bool {
	return len(req.Tools) == 0 && strings.Contains(req.System, "Reply with exactly one word")
}

// TestRouterSeesFollowUp is the first seed's flow: "read mcp.json" fails at
// the tool, the assistant asks for the full path, and the user answers with
// the path alone. The router must see that answer as a reply to a tool
// turn; shown only the path, it would say no tools are needed.
func TestRouterSeesFollowUp(t *testing.T) {
	root, full := mcpJSONProject(t)
	code := func(path string) string {
		return `<tool_code>{"tool_name": "read_file", "arguments": {"path": "` + path + `"}}</tool_code>`
	}
	var (
		mu   sync.Mutex
		main = []string{code("mcp.json"), "It seems I need the complete path. Could you please provide it?", code(full), "It configures one MCP server."}
	)
	fake := llmtest.NewFakeProvider()
	fake.Respond = func(_ context.Context, _ int, req *llm.Request) iter.Seq2[llm.Event, error] {
		var answer string
		if isRouterRequest(req) {
			answer = readingRouter(req)
		} else {
			mu.Lock()
			if len(main) > 0 {
				answer, main = main[0], main[1:]
			}
			mu.Unlock()
		}
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range llmtest.Events(llmtest.Turn{Text: []string{answer}}) {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}
	e := textModeEnv(t, fake, root)

	evs := e.mustRun(t, &agent.Request{Message: "read mcp.json"})
	if r := find(evs, agent.EventRouter); len(r) != 1 || !r[0].Router.NeedsTools {
		t.Fatalf("first turn's router = %+v", r)
	}
	evs = e.mustRun(t, &agent.Request{Message: full})
	r := find(evs, agent.EventRouter)
	if len(r) != 1 || !r[0].Router.NeedsTools {
		var shown string
		for _, req := range fake.Requests() {
			if isRouterRequest(&req) {
				shown = allText(req.Messages)
			}
		}
		t.Fatalf("the router said no tools for the path given after a failed read; it was shown:\n%s", shown)
	}
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 1 || ends[0].Result.IsError || !strings.Contains(ends[0].Result.Text, "mcpServers") {
		t.Fatalf("second turn's calls = %+v", ends)
	}
	var shown string
	for _, req := range fake.Requests() {
		if isRouterRequest(&req) {
			shown = allText(req.Messages)
		}
	}
	for _, want := range []string{"read_file", "(failed)", "complete path", full} {
		if !strings.Contains(shown, want) {
			t.Errorf("router input lacks %q:\n%s", want, shown)
		}
	}
}
