package agent_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// mcpJSONProject writes project/mcp.json, naming one MCP server, under
// a new root, and returns the root and the file's path: the seeds' file.
func mcpJSONProject(t *testing.T) (root, full string) {
	t.Helper()
	root = t.TempDir()
	full = filepath.Join(root, "project", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(`{"mcpServers":{"files":{"command":"npx"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, full
}

// textModeEnv is an env whose model, fake, has no native tool calling:
// textcall wraps it in the text protocol. The builtin tools work in root.
func textModeEnv(t *testing.T, fake *llmtest.FakeProvider, root string) *env {
	t.Helper()
	wrapped := textcall.Wrap(fake, &textcall.Options{Mode: textcall.ModeText})
	e := newEnv(t, fake, nil)
	e.resolve = func(string) (agent.Model, error) {
		return agent.Model{Name: "main", Provider: wrapped, ToolMode: agent.ToolModeText}, nil
	}
	bt, err := builtin.New(&builtin.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	e.reg.Set(tools.Source{Kind: tools.KindBuiltin}, bt)
	return e
}

// TestReadMCPJSONTextMode is the desktop-chat flow: a model without native
// tool calling (text protocol through textcall), the router, a relative
// path that fails at the real read_file tool, the model asking for the
// full path, and the answer from the file once the user gives it.
func TestReadMCPJSONTextMode(t *testing.T) {
	root, full := mcpJSONProject(t)
	code := func(path string) llmtest.FakeReply {
		return say(`<tool_code>{"tool_name": "read_file", "arguments": {"path": "` + path + `"}}</tool_code>`)
	}
	fake := llmtest.NewFakeProvider(
		say("yes"), code("mcp.json"), say("It seems I need the complete path. Could you please provide it?"),
		say("Yes."), code(full), say("mcp.json configures one MCP server, files, started with npx."),
	)
	e := textModeEnv(t, fake, root)

	evs := e.mustRun(t, &agent.Request{Message: "read mcp.json"})
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 1 || !ends[0].Result.IsError || ends[0].Call.Name != "read_file" {
		t.Fatalf("first turn's calls = %+v", ends)
	}
	if got := text(evs); !strings.Contains(got, "complete path") {
		t.Errorf("first answer = %q", got)
	}

	evs = e.mustRun(t, &agent.Request{Message: full})
	ends = find(evs, agent.EventToolEnd)
	if len(ends) != 1 || ends[0].Result.IsError || !strings.Contains(ends[0].Result.Text, "mcpServers") {
		t.Fatalf("second turn's calls = %+v", ends)
	}
	if got := text(evs); !strings.HasSuffix(got, "started with npx.") {
		t.Errorf("final answer = %q", got)
	}
	reqs := fake.Requests()
	if len(reqs) != 6 {
		t.Fatalf("model asked %d times, want 6", len(reqs))
	}
	// Text mode: no native tools; the manifest is in the system prompt and
	// the tool result comes back as text.
	if len(reqs[1].Tools) != 0 || !strings.Contains(reqs[1].System, "read_file") {
		t.Errorf("text-mode request: %d native tools, system prompt without the manifest", len(reqs[1].Tools))
	}
	if got := allText(reqs[2].Messages); !strings.Contains(got, "mcp.json") || !strings.Contains(strings.ToLower(got), "no such file") && !strings.Contains(strings.ToLower(got), "not found") && !strings.Contains(strings.ToLower(got), "not exist") {
		t.Errorf("the model did not see the tool error; it saw:\n%s", got)
	}
	if recs := e.audit.all(); len(recs) != 2 || recs[0].Res.Outcome != store.OutcomeToolError || recs[1].Res.Outcome != store.OutcomeOK {
		t.Errorf("audit = %+v", recs)
	}
}

func allText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestCheckLatestEmails is the multi-agent flow: "@bob check my 2 latest
// emails" goes to bob, whose model calls read-emails with limit 2 on the
// OpenAPI e-mail server.
func TestCheckLatestEmails(t *testing.T) {
	mail := httptest.NewServer(emailserver.New())
	defer mail.Close()
	srv := openapi.New("email", &openapi.Options{URL: mail.URL, HTTPClient: mail.Client()})
	if err := srv.Load(t.Context()); err != nil {
		t.Fatal(err)
	}

	main := llmtest.NewFakeProvider()
	bob := llmtest.NewFakeProvider(calls("b1", "email__read-emails", `{"limit": 2}`), say("Your 2 latest: kickoff moved; lunch on Friday."))
	e := newEnv(t, main, nil)
	e.models["bobm"] = bob
	e.agents.agents["bob"] = store.Agent{Name: "bob", Model: "bobm", Servers: []string{"email"}}
	e.reg.Set(tools.Source{Kind: tools.KindOpenAPI, Server: "email"}, srv.Tools())

	evs := e.mustRun(t, &agent.Request{Message: "@bob check my 2 latest emails"})
	var names []string
	for _, ts := range bob.Requests()[0].Tools {
		names = append(names, ts.Name)
	}
	if strings.Join(names, ",") != "email__read-emails,email__send-email" {
		t.Errorf("bob's tools = %v", names)
	}
	res := toolMessages(bob.Requests(), 1)
	if len(res) != 1 || res[0].IsError {
		t.Fatalf("read-emails results = %+v", res)
	}
	if got := res[0].Text(); !strings.Contains(got, "msg-1") || !strings.Contains(got, "msg-2") || strings.Contains(got, "msg-3") {
		t.Errorf("read-emails with limit 2 returned:\n%s", got)
	}
	if got := text(evs); got != "Your 2 latest: kickoff moved; lunch on Friday." {
		t.Errorf("answer = %q", got)
	}
	if len(main.Requests()) != 0 {
		t.Error("the assistant's model answered too")
	}
}
