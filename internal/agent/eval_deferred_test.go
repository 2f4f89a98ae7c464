package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank/ranktest"
)

// loadToolbench returns the development split of toolbench, kept in
// package rank's test data: 506 tools in 25 servers, and 100 requests with
// the tools that answer them.
func loadToolbench(t testing.TB) (*tools.Registry, []ranktest.Query) {
	t.Helper()
	testdata := filepath.Join("..", "tools", "rank", "testdata")
	return ranktest.Registry(t, testdata), ranktest.DevQueries(t, testdata)
}

// wordPicker is the fake model of the evaluation. It knows nothing of the
// retriever or of the gold tools: it reads the request and the tools it is
// offered, and picks by its own plain reading, the number of the request's
// words (lower-cased, a few suffixes cut, common words dropped) that appear
// in a tool's name or description. When no offered tool shares at least
// two words with the request it calls find_tools once, with the request's
// words as the query, then picks among what it is offered after.
func wordPicker(_ context.Context, _ int, req *llm.Request) iter.Seq2[llm.Event, error] {
	// In text mode the tools are in the system prompt, one "- name:
	// description" line each, and calls are written as <tool_code> blocks.
	offered := req.Tools
	textMode := len(offered) == 0 && strings.Contains(req.System, "<tool_code>")
	if textMode {
		for line := range strings.Lines(req.System) {
			rest, ok := strings.CutPrefix(line, "- ")
			if name, desc, ok2 := strings.Cut(rest, ": "); ok && ok2 && !strings.Contains(name, " ") {
				offered = append(offered, llm.ToolSpec{Name: name, Description: desc})
			}
		}
	}
	var (
		request     string
		searched    bool
		calledOther bool
		calls       int
	)
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			if request == "" {
				request = m.Text() // the turn's request; later user messages are tool results in text mode
			}
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				calls++
				searched = searched || c.Name == agent.FindToolsName
				calledOther = calledOther || c.Name != agent.FindToolsName
			}
			if t := m.Text(); strings.Contains(t, "<tool_code>") {
				calls++
				if strings.Contains(t, `"`+agent.FindToolsName+`"`) {
					searched = true
				} else {
					calledOther = true
				}
			}
		}
	}
	want := pickWords(request)
	best, bestScore, findOffered := "", 0, false
	for _, s := range offered {
		if s.Name == agent.FindToolsName {
			findOffered = true
			continue
		}
		have := pickWords(s.Name + " " + s.Description)
		n := 0
		for w := range want {
			if have[w] {
				n++
			}
		}
		if n > bestScore {
			best, bestScore = s.Name, n
		}
	}
	call := func(name, args string) llmtest.Turn {
		if textMode {
			return llmtest.Turn{Text: []string{`<tool_code>{"tool_name": "` + name + `", "arguments": ` + args + `}</tool_code>`}}
		}
		return llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: fmt.Sprintf("c%d", calls), Name: name, ArgChunks: []string{args}}}}
	}
	var turn llmtest.Turn
	switch {
	case calledOther:
		turn.Text = []string{"done"}
	case bestScore < 2 && findOffered && !searched:
		query := strings.Join(slices.Sorted(maps.Keys(want)), " ")
		args, _ := json.Marshal(map[string]string{"query": query})
		turn = call(agent.FindToolsName, string(args))
	case bestScore > 0:
		turn = call(best, "{}")
	default:
		turn.Text = []string{"I have no tool for that."}
	}
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range llmtest.Events(turn) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// manifestNames returns the tools a text-mode manifest describes in full.
func manifestNames(system string) []string {
	var out []string
	for line := range strings.Lines(system) {
		rest, ok := strings.CutPrefix(line, "- ")
		if name, _, ok2 := strings.Cut(rest, ": "); ok && ok2 && !strings.Contains(name, " ") {
			out = append(out, name)
		}
	}
	return out
}

var pickStop = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "that": true, "this": true, "what": true,
	"are": true, "was": true, "has": true, "have": true, "can": true, "you": true, "your": true, "our": true,
	"all": true, "any": true, "into": true, "out": true, "about": true, "its": true, "it's": true, "please": true,
	"one": true, "get": true, "give": true, "who": true, "how": true, "when": true, "which": true, "does": true,
	"not": true, "but": true, "there": true, "them": true, "they": true, "will": true, "should": true, "just": true,
}

// pickWords is the fake model's own reading of a text: its words of three
// letters or more, lower-cased, with a plural or -ing/-ed ending cut.
func pickWords(s string) map[string]bool {
	out := make(map[string]bool)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) {
		switch {
		case len(w) > 4 && strings.HasSuffix(w, "ies"):
			w = w[:len(w)-3] + "y"
		case len(w) > 5 && strings.HasSuffix(w, "ing"):
			w = w[:len(w)-3]
		case len(w) > 4 && strings.HasSuffix(w, "ed"):
			w = w[:len(w)-2]
		case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			w = w[:len(w)-1]
		}
		if len(w) >= 3 && !pickStop[w] {
			out[w] = true
		}
	}
	return out
}

// TestEvalDeferredNative runs every development request through the
// runtime in native mode with the fake model above, and measures whether a
// gold tool was offered on the first call or found through find_tools. The
// default budget (40) must reach 0.95; smaller budgets are printed to show
// how much find_tools carries when fewer tools are offered.
func TestEvalDeferredNative(t *testing.T) {
	reg, qs := loadToolbench(t)
	for _, budget := range []int{agent.DefaultToolBudget, 20, 10, 5} {
		t.Run(fmt.Sprintf("budget%d", budget), func(t *testing.T) {
			got := evalDeferred(t, reg, qs, budget, false)
			if budget == agent.DefaultToolBudget && got < 0.95 {
				t.Errorf("a gold tool was offered or found for %.2f of the requests, below 0.95", got)
			}
		})
	}
}

// TestEvalDeferredText is the same through the text protocol, for a model
// whose context window is 8,192 tokens: the manifest gets a quarter of it,
// as the app sets, so it describes fewer tools than the budget offers.
func TestEvalDeferredText(t *testing.T) {
	reg, qs := loadToolbench(t)
	if got := evalDeferred(t, reg, qs, agent.DefaultToolBudget, true); got < 0.95 {
		t.Errorf("a gold tool was described or found for %.2f of the requests, below 0.95", got)
	}
}

// evalDeferred measures one setting. offered counts, on the first model
// call, the tools the model can see: the native tools, or in text mode the
// tools the manifest describes in full.
func evalDeferred(t *testing.T, reg *tools.Registry, qs []ranktest.Query, budget int, textMode bool) float64 {
	fake := llmtest.NewFakeProvider()
	fake.Respond = wordPicker
	model := agent.Model{Name: "main", Provider: fake, ToolMode: agent.ToolModeNative}
	if textMode {
		const window = 8192
		model = agent.Model{
			Name: "main", ToolMode: agent.ToolModeText, ContextWindow: window,
			Provider: textcall.Wrap(fake, &textcall.Options{Mode: textcall.ModeText, Budget: window / 4, Pinned: []string{agent.FindToolsName}}),
		}
	}
	rt := agent.New(func(string) (agent.Model, error) { return model, nil }, reg, gate.New(nil),
		&agent.Options{ToolBudget: budget, Assistant: store.Agent{Router: string(agent.RouterOff)}})

	type result struct{ offered, covered, searched, rescued, picked, listed bool }
	measure := func(name string, rs []result, offered int) float64 {
		var n [6]int
		for _, r := range rs {
			for i, b := range []bool{r.offered, r.covered, r.searched, r.rescued, r.picked, r.listed} {
				if b {
					n[i]++
				}
			}
		}
		f := func(k int) float64 { return float64(k) / float64(max(len(rs), 1)) }
		t.Logf("%-5s (%3d): offered or found %.2f | recall@offered %.2f, mean offered %.1f | find_tools called %.2f, listed a gold tool %d times of %d, one not offered %d | fake model picked a gold tool %.2f",
			name, len(rs), f(n[1]), f(n[0]), float64(offered)/float64(max(len(rs), 1)), f(n[2]), n[5], n[2], n[3], f(n[4]))
		return f(n[1])
	}
	var all, tune, held []result
	offered, offeredTune, offeredHeld := 0, 0, 0
	for i, q := range qs {
		before := len(fake.Requests())
		var evs []agent.Event
		for ev, err := range rt.Run(t.Context(), &agent.Request{ConversationID: fmt.Sprintf("eval-%d", i), Message: q.Query, Approver: agent.AutoApprove}) {
			if err != nil {
				t.Fatalf("%s: %v", q.ID, err)
			}
			evs = append(evs, ev)
		}
		reqs := fake.Requests()[before:]
		gold := q.GoldNames()
		var r result
		first := specNames(reqs[0].Tools)
		if textMode {
			first = manifestNames(reqs[0].System)
		}
		r.offered = slices.ContainsFunc(first, func(n string) bool { return slices.Contains(gold, n) })
		for _, e := range find(evs, agent.EventToolEnd) {
			if e.Call.Name == agent.FindToolsName {
				r.searched = true
				for line := range strings.Lines(e.Result.Text) {
					name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
					if ok && slices.Contains(gold, name) {
						r.listed = true
						r.rescued = r.rescued || !r.offered
					}
				}
				continue
			}
			r.picked = r.picked || slices.Contains(gold, e.Call.Name)
		}
		r.covered = r.offered || r.rescued
		all = append(all, r)
		offered += len(first)
		if ranktest.HeldOut(q.ID) {
			held, offeredHeld = append(held, r), offeredHeld+len(first)
		} else {
			tune, offeredTune = append(tune, r), offeredTune+len(first)
		}
	}
	got := measure("all", all, offered)
	measure("tune", tune, offeredTune)
	measure("held", held, offeredHeld)
	return got
}
