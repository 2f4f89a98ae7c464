package chat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestTUICommands(t *testing.T) {
	fb := &fakeBackend{
		tools: []tools.Entry{
			{Name: "files__read_file", Origin: tools.Origin{Kind: tools.KindMCP, Server: "files"}, Info: tools.Info{Description: "Reads a file.\nMore text.", Annotations: &tools.Annotations{ReadOnlyHint: true}}},
			{Name: "terminal", Origin: tools.Origin{Kind: tools.KindBuiltin}, Info: tools.Info{Description: "Runs a command."}},
		},
		servers: []ServerLine{{Name: "files", Kind: "mcp", State: "ready", Tools: 1}, {Name: "mail", Kind: "openapi", State: "failed", LastError: "connection refused"}},
		agents:  []store.Agent{{Name: "bob", Description: "Handles e-mail.", Servers: []string{"mail"}}},
	}
	tests := []struct {
		input string
		want  []string
	}{
		{"/tools", []string{"2 tools", "files__read_file", "mcp:files", "read-only", "Reads a file.", "terminal", "destructive"}},
		{"/servers", []string{"files", "ready", "mail", "failed", "connection refused"}},
		{"/agents", []string{"@bob", "(default)", "mail", "Handles e-mail."}},
		{"/help", []string{"/new", "start a new conversation"}},
		{"/frobnicate", []string{"unknown command /frobnicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			h := newHarness(t, fb, nil)
			h.typeLine(tt.input)
			h.pumpUntil(tt.want[len(tt.want)-1])
			for _, w := range tt.want {
				if !strings.Contains(h.view(), w) {
					t.Errorf("%s: view does not contain %q:\n%s", tt.input, w, h.view())
				}
			}
			if _, reqs := fb.recorded(); len(reqs) != 0 {
				t.Errorf("%s started a turn: %+v", tt.input, reqs)
			}
		})
	}
}

func TestTUISlashEscape(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, nil)
	h.typeLine("//etc/hosts: what is it?")
	h.pumpUntil("› /etc/hosts: what is it?")
	close(h.feed)
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	_, reqs := fb.recorded()
	if len(reqs) != 1 || reqs[0].Message != "/etc/hosts: what is it?" {
		t.Errorf("requests = %+v, want one with the message starting with one /", reqs)
	}
}

func TestTUINewResets(t *testing.T) {
	fb := &fakeBackend{}
	h := newHarness(t, fb, nil)
	h.typeLine("first question")
	h.event(text("first answer"), "first answer")
	h.event(done(), "first answer")
	h.finish()

	h.typeLine("/new")
	h.pumpUntil("new conversation conv2")
	if v := h.view(); strings.Contains(v, "first question") || strings.Contains(v, "first answer") {
		t.Errorf("/new kept the old transcript:\n%s", v)
	}
	h.typeLine("second question")
	h.pumpUntil("› second question")
	close(h.feed)
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	_, reqs := fb.recorded()
	var convs []string
	for _, r := range reqs {
		convs = append(convs, r.ConversationID)
	}
	if diff := cmp.Diff([]string{"conv1", "conv2"}, convs); diff != "" {
		t.Errorf("conversation ids mismatch (-want +got):\n%s", diff)
	}
}

func TestTUICtrlC(t *testing.T) {
	t.Run("first cancels the turn, second quits", func(t *testing.T) {
		h := newHarness(t, &fakeBackend{}, nil)
		h.typeLine("long job")
		h.event(text("working on it"), "working on it")
		h.key("ctrl+c")
		<-h.cancelled // the run's context was cancelled
		h.pumpUntil("✗ cancelled")
		h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
		if h.quit {
			t.Fatal("the first ctrl+c quit")
		}
		h.key("ctrl+c")
		h.pump("quit", func(string) bool { return h.quit })
	})
	t.Run("idle with empty input quits", func(t *testing.T) {
		h := newHarness(t, &fakeBackend{}, nil)
		h.key("ctrl+c")
		h.pump("quit", func(string) bool { return h.quit })
	})
	t.Run("idle with text clears it first", func(t *testing.T) {
		h := newHarness(t, &fakeBackend{}, nil)
		h.send(keyMsg("h"))
		h.key("ctrl+c")
		if got := h.m.input.Value(); got != "" {
			t.Errorf("input = %q after ctrl+c, want it cleared", got)
		}
		h.key("ctrl+c")
		h.pump("quit", func(string) bool { return h.quit })
	})
	t.Run("quit while a turn runs cancels it", func(t *testing.T) {
		h := newHarness(t, &fakeBackend{}, nil)
		h.typeLine("long job")
		h.event(text("working"), "working")
		h.typeLine("/quit")
		h.pump("quit", func(string) bool { return h.quit })
		<-h.cancelled
		h.m.stop() // what RunTUI does after the program ends
	})
}

func TestTUIHistory(t *testing.T) {
	fb := &fakeBackend{history: map[string][]store.Message{"old": {
		{Message: llm.UserText("what is in notes.txt?")},
		{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "files__read_file", Arguments: []byte(`{"path":"notes.txt"}`)}}}},
		{Message: llm.Message{Role: llm.RoleTool, ToolCallID: "t1", Content: []llm.Part{llm.TextPart("no such file")}, IsError: true}},
		{Message: llm.AssistantText("There is no *notes.txt*."), Agent: "bob"},
	}}}
	h := newHarness(t, fb, &Options{ConversationID: "old"})
	h.pumpUntil("There is no notes.txt.")
	for _, w := range []string{"conversation old: 4 earlier messages", "› what is in notes.txt?", `✗ files__read_file {"path":"notes.txt"}`, "no such file", "@bob"} {
		if !strings.Contains(h.view(), w) {
			t.Errorf("view does not contain %q:\n%s", w, h.view())
		}
	}
	h.typeLine("and now?")
	h.pumpUntil("› and now?")
	close(h.feed)
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
	if _, reqs := fb.recorded(); len(reqs) != 1 || reqs[0].ConversationID != "old" {
		t.Errorf("requests = %+v, want one in conversation old", reqs)
	}
}

func TestTUIRecall(t *testing.T) {
	h := newHarness(t, &fakeBackend{}, nil)
	h.typeLine("/help")
	h.typeLine("/servers")
	for _, step := range []struct{ key, want string }{
		{"up", "/servers"}, {"up", "/help"}, {"up", "/help"}, {"down", "/servers"}, {"down", ""},
	} {
		h.key(step.key)
		if got := h.m.input.Value(); got != step.want {
			t.Errorf("after %s: input = %q, want %q", step.key, got, step.want)
		}
	}
}
