package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// offeringsBackend is a fakeBackend with prompts and resources; Expand
// records what it was given and makes the prompt's text the message.
type offeringsBackend struct {
	*fakeBackend
	prompts   []Prompt
	resources []Resource
	values    []string
	expandErr error

	omu      sync.Mutex
	expanded []Additions       // guarded by omu
	asked    []CompleteRequest // guarded by omu
}

func (o *offeringsBackend) Prompts(context.Context) ([]Prompt, error)     { return o.prompts, nil }
func (o *offeringsBackend) Resources(context.Context) ([]Resource, error) { return o.resources, nil }

func (o *offeringsBackend) Complete(_ context.Context, req CompleteRequest) ([]string, error) {
	o.omu.Lock()
	o.asked = append(o.asked, req)
	o.omu.Unlock()
	var out []string
	for _, v := range o.values {
		if strings.HasPrefix(v, req.Value) {
			out = append(out, v)
		}
	}
	return out, nil
}

func (o *offeringsBackend) Expand(_ context.Context, req *agent.Request, add *Additions) error {
	o.omu.Lock()
	o.expanded = append(o.expanded, *add)
	o.omu.Unlock()
	if o.expandErr != nil {
		return o.expandErr
	}
	if add.Prompt != "" {
		req.Message = "Greet " + add.Arguments["name"]
	}
	return nil
}

func (o *offeringsBackend) recordedAdds() ([]Additions, []CompleteRequest) {
	o.omu.Lock()
	defer o.omu.Unlock()
	return append([]Additions(nil), o.expanded...), append([]CompleteRequest(nil), o.asked...)
}

func newOfferings() *offeringsBackend {
	return &offeringsBackend{
		fakeBackend: &fakeBackend{run: script(nil, text("done here"), done())},
		prompts: []Prompt{{Name: "srv__greet", Description: "greets someone", Arguments: []PromptArgument{
			{Name: "name", Description: "who to greet", Required: true}, {Name: "mood"},
		}}},
		resources: []Resource{
			{URI: "switchboard://srv/docs/readme.md", Name: "Read me"},
			{URI: "switchboard://srv/docs/guide.md", Name: "Guide"},
		},
		values: []string{"Sales", "Support", "Two words"},
	}
}

func (h *harness) tab() { h.send(tea.KeyPressMsg{Code: tea.KeyTab}) }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestTUIPromptsList(t *testing.T) {
	h := newHarnessFor(t, newOfferings(), nil)
	h.typeLine("/prompts")
	h.pumpUntil("/srv__greet")
	if v := h.view(); !strings.Contains(v, "name=… [mood=…]") || !strings.Contains(v, "greets someone") {
		t.Errorf("/prompts shows:\n%s", v)
	}
}

func TestTUIPromptRuns(t *testing.T) {
	ob := newOfferings()
	h := newHarnessFor(t, ob, nil)
	h.typeLine(`/srv__greet name="Ada \"L\"" mood=glad`)
	h.pumpUntil("done here")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	adds, _ := ob.recordedAdds()
	want := []Additions{{Prompt: "srv__greet", Arguments: map[string]string{"name": `Ada "L"`, "mood": "glad"}}}
	if diff := cmp.Diff(want, adds); diff != "" {
		t.Errorf("expanded (-want +got):\n%s", diff)
	}
	if _, reqs := ob.recorded(); len(reqs) != 1 || reqs[0].Message != `Greet Ada "L"` {
		t.Errorf("requests %+v, want the prompt's message", reqs)
	}
}

func TestTUIPromptArgumentErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"/srv__greet", "the prompt /srv__greet needs name (who to greet); run it as /srv__greet name=… [mood=…]"},
		{"/srv__greet mood=x", "needs name"},
		{"/srv__greet name=a colour=red", `has no argument "colour"; it takes name, mood`},
		{`/srv__greet name="open`, "a quote is not closed"},
		{"/srv__greet name", `"name" is not name=value`},
		{"/srv__greet name=a name=b", "the argument name is given twice"},
		{"/srv__nope x=1", "no prompt /srv__nope that you may run; /prompts lists them"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			ob := newOfferings()
			h := newHarnessFor(t, ob, nil)
			h.typeLine(tc.line)
			h.pumpUntil(tc.want)
			if _, reqs := ob.recorded(); len(reqs) != 0 {
				t.Errorf("a refused prompt ran: %+v", reqs)
			}
		})
	}
}

// TestTUIPromptAsksMissing brings a prompt run without a required
// argument back to the input with that argument's name typed: the value
// typed after it runs the prompt.
func TestTUIPromptAsksMissing(t *testing.T) {
	ob := newOfferings()
	h := newHarnessFor(t, ob, nil)
	h.typeLine("/srv__greet mood=glad")
	h.pump("the question", func(string) bool { return h.m.input.Value() == "/srv__greet mood=glad name=" })
	h.typeLine("Bo")
	h.pumpUntil("done here")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if _, reqs := ob.recorded(); len(reqs) != 1 || reqs[0].Message != "Greet Bo" {
		t.Errorf("requests %+v, want the prompt run with the name typed", reqs)
	}
}

func TestTUIAttachResource(t *testing.T) {
	ob := newOfferings()
	h := newHarnessFor(t, ob, nil)
	h.typeText("see @read")
	h.tab()
	h.pump("the completed resource", func(string) bool {
		return h.m.input.Value() == "see @switchboard://srv/docs/readme.md "
	})
	h.typeText("and ask @bob")
	h.key("enter")
	h.pumpUntil("done here")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if !strings.Contains(h.view(), "attached switchboard://srv/docs/readme.md") {
		t.Errorf("the attachment is not noted:\n%s", h.view())
	}
	adds, _ := ob.recordedAdds()
	if diff := cmp.Diff([]Additions{{URIs: []string{"switchboard://srv/docs/readme.md"}}}, adds); diff != "" {
		t.Errorf("expanded (-want +got):\n%s", diff)
	}
}

func TestTUICompleteSeveralResources(t *testing.T) {
	h := newHarnessFor(t, newOfferings(), nil)
	h.typeText("@DOCS")
	h.tab()
	h.pumpUntil("switchboard://srv/docs/guide.md")
	if !strings.Contains(h.view(), "@switchboard://srv/docs/readme.md") {
		t.Errorf("both matches are not listed:\n%s", h.view())
	}
	// Matches are found case-insensitively, so the typed word is no
	// beginning of theirs and stays as it was.
	if v := h.m.input.Value(); v != "@DOCS" {
		t.Errorf("input %q, want it unchanged", v)
	}
	h.m.input.SetValue("@switchboard://srv/d")
	h.tab()
	h.pump("the common beginning", func(string) bool { return h.m.input.Value() == "@switchboard://srv/docs/" })
	h.m.input.SetValue("@nothing")
	h.tab()
	h.pumpUntil("no resource matches @nothing")
}

func TestTUICompleteArgument(t *testing.T) {
	ob := newOfferings()
	h := newHarnessFor(t, ob, nil)
	h.typeText("/srv__greet mood=glad name=T")
	h.tab()
	h.pump("the completed value", func(string) bool { return h.m.input.Value() == `/srv__greet mood=glad name="Two words" ` })
	h.m.input.SetValue("/srv__greet name=S")
	h.tab()
	h.pumpUntil("name=Support")
	_, asked := ob.recordedAdds()
	want := []CompleteRequest{
		{Prompt: "srv__greet", Argument: "name", Value: "T", Context: map[string]string{"mood": "glad"}},
		{Prompt: "srv__greet", Argument: "name", Value: "S", Context: map[string]string{}},
	}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("completions asked (-want +got):\n%s", diff)
	}
	// Tab on a line that is no prompt with an argument does nothing.
	h.m.input.SetValue("plain words")
	h.tab()
	if v := h.m.input.Value(); v != "plain words" {
		t.Errorf("tab changed %q", v)
	}
}

func TestTUIExpandFails(t *testing.T) {
	ob := newOfferings()
	ob.expandErr = errors.New("your permissions do not cover the server srv")
	h := newHarnessFor(t, ob, nil)
	h.typeLine("read @switchboard://srv/docs/readme.md")
	h.pumpUntil("your permissions do not cover the server srv")
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if _, reqs := ob.recorded(); len(reqs) != 0 {
		t.Errorf("the model was asked despite the refused read: %+v", reqs)
	}
}

func TestTUINoOfferings(t *testing.T) {
	h := newHarness(t, &fakeBackend{}, nil)
	h.typeLine("/prompts")
	h.pumpUntil("listing prompts: this chat has no MCP prompts or resources")
	h.typeText("@x")
	h.tab()
	h.pumpUntil("✗ this chat has no MCP prompts")
}

// TestTUIHistoryNamesAttachments resumes a conversation whose message
// carried a resource: the resource is named, its contents not shown.
func TestTUIHistoryNamesAttachments(t *testing.T) {
	res := llm.TextPart("Attached resource switchboard://srv/secret.txt:\n\nLONG CONTENTS")
	res.URI = "switchboard://srv/secret.txt"
	fb := &fakeBackend{history: map[string][]store.Message{"old": {
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("sum up @switchboard://srv/secret.txt"), res}}},
		{Message: llm.AssistantText("It is short.")},
	}}}
	h := newHarness(t, fb, &Options{ConversationID: "old"})
	h.pumpUntil("It is short.")
	if v := h.view(); !strings.Contains(v, "attached switchboard://srv/secret.txt") || strings.Contains(v, "LONG CONTENTS") {
		t.Errorf("the resumed transcript shows:\n%s", v)
	}
}
