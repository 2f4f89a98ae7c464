package security

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// surface is one way a tool is reached. call makes one call of tool with
// args (a JSON object) as the holder of key and reports whether the tool's
// answer reached the caller. When the call needs approval, the person
// answers no: every surface that can ask is asked, and declines.
type surface struct {
	name string
	// local reports whether the surface's caller is the local user (stdio
	// MCP): one person, every tool, no API key.
	local bool
	// read is a tool the default policy allows, ask one it asks about;
	// zero means test__echo and test__add of the test MCP server.
	read, ask toolCall
	// agent is the agent the audit records name ("" for the assistant).
	agent string
	// admin makes the row's users admins: the assistant's tools that
	// change agents need the role the API's agent routes need.
	admin bool
	call  func(t *testing.T, s *surfaceStack, key, tool, args string) bool
	// callN, when set, makes n calls in one session (a stdio process is
	// one session, with its own in-process limiter).
	callN func(t *testing.T, s *surfaceStack, key, tool, args string, n int) []bool
}

// calls makes n calls of tool as the holder of key, in one session where
// the surface has sessions, and reports which reached the caller.
func (sf surface) calls(t *testing.T, s *surfaceStack, key, tool, args string, n int) []bool {
	if sf.callN != nil {
		return sf.callN(t, s, key, tool, args, n)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = sf.call(t, s, key, tool, args)
	}
	return out
}

type toolCall struct{ name, args string }

var (
	echoCall = toolCall{"test__echo", echoArgs}
	addCall  = toolCall{"test__add", `{"a":40,"b":2}`}
)

var surfaces = []surface{
	{name: "REST tools API", call: callREST},
	{name: "chat completions", call: callChat},
	{name: "MCP over HTTP", call: callMCPHTTP},
	{name: "MCP on stdio", local: true, call: callMCPStdio, callN: callMCPStdioN},
	{name: "agent run", call: runWith("")},
	{name: "@mention", agent: "helper", call: runWith("@helper ")},
	{
		name: "assistant tool",
		read: toolCall{"list_agents", `{}`}, ask: toolCall{"assign_server", `{"agent":"helper","server":"test"}`},
		admin: true, call: runWith(""),
	},
}

// user creates a user of the row's role with the permission globs and
// returns its API key.
func (sf surface) user(t *testing.T, s *surfaceStack, name string, perms ...string) string {
	t.Helper()
	role := store.RoleUser
	if sf.admin {
		role = store.RoleAdmin
	}
	return s.userWithRole(t, name, role, perms...)
}

func (sf surface) readCall() toolCall {
	if sf.read.name == "" {
		return echoCall
	}
	return sf.read
}

func (sf surface) askCall() toolCall {
	if sf.ask.name == "" {
		return addCall
	}
	return sf.ask
}

// callREST calls POST /api/v1/tools/{name}/call; a call waiting for
// approval is declined through the approvals API, as its user would.
func callREST(t *testing.T, s *surfaceStack, key, tool, args string) bool {
	done := make(chan bool, 1)
	go func() {
		code, _ := s.do(t, key, http.MethodPost, "/api/v1/tools/"+tool+"/call", map[string]json.RawMessage{"arguments": json.RawMessage(args)})
		done <- code == http.StatusOK
	}()
	for {
		select {
		case ok := <-done:
			return ok
		default:
		}
		_, b := s.do(t, key, http.MethodGet, "/api/v1/approvals", nil)
		var l struct{ Items []struct{ ID string } }
		_ = json.Unmarshal(b, &l)
		for _, a := range l.Items {
			s.do(t, key, http.MethodPost, "/api/v1/approvals/"+a.ID, map[string]string{"decision": "deny", "reason": "not now"})
		}
		select {
		case ok := <-done:
			return ok
		case <-t.Context().Done():
			return false
		case <-waitTick():
		}
	}
}

// toolAnswered matches the model's report of a tool result that carries
// the marker (a refusal does not carry it).
var toolAnswered = regexp.MustCompile(`Tool said: [^"]*` + toolMarker)

// callChat asks the model on /v1/chat/completions to call the tool. A
// chat completion cannot ask anyone, so a call that needs approval is
// refused there.
func callChat(t *testing.T, s *surfaceStack, key, tool, args string) bool {
	code, b := s.do(t, key, http.MethodPost, "/v1/chat/completions", map[string]any{
		"model":    "default",
		"messages": []map[string]string{{"role": "user", "content": "please call " + tool + " " + args}},
	})
	if code != http.StatusOK {
		t.Logf("chat completions: %d %s", code, b)
		return false
	}
	return toolAnswered.Match(b)
}

// runWith returns the surface of an agent run through the HTTP API whose
// message starts with prefix ("@helper " hands it to that agent).
func runWith(prefix string) func(t *testing.T, s *surfaceStack, key, tool, args string) bool {
	return func(t *testing.T, s *surfaceStack, key, tool, args string) bool {
		return callAgentRun(t, s, key, prefix+"please call "+tool+" "+args)
	}
}

// callAgentRun posts message to a new conversation and declines, through
// the approvals API, every approval the run's stream announces. It
// reports whether a tool call of the run ended ok.
func callAgentRun(t *testing.T, s *surfaceStack, key, message string) bool {
	_, resp := s.postMessage(t, t.Context(), key, message)
	defer resp.Body.Close()
	_, ran := sseApprovals(resp.Body, func(id string) {
		if code, b := s.do(t, key, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "deny", "reason": "not now"}); code != http.StatusOK {
			t.Errorf("declining approval %s: %d %s", id, code, b)
		}
	})
	return ran
}

// mcpCall calls tool on an MCP client session whose elicitation handler
// declines every approval question.
func mcpCall(t *testing.T, cs *mcp.ClientSession, tool, args string) bool {
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: m})
	return err == nil && !res.IsError
}

func declineAll(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// callMCPHTTP calls through /mcp with the go-sdk client and the user's key.
func callMCPHTTP(t *testing.T, s *surfaceStack, key, tool, args string) bool {
	c := mcp.NewClient(&mcp.Implementation{Name: "security-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: declineAll})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:   s.base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to /mcp: %v", err)
	}
	defer cs.Close()
	return mcpCall(t, cs, tool, args)
}

// callMCPStdio runs `switchboard mcp` (the CLI command, in-process, with
// the stack's config and database) on pipes and calls through it.
func callMCPStdio(t *testing.T, s *surfaceStack, key, tool, args string) bool {
	return callMCPStdioN(t, s, key, tool, args, 1)[0]
}

// callMCPStdioN makes n calls through one `switchboard mcp` session.
func callMCPStdioN(t *testing.T, s *surfaceStack, _ string, tool, args string, n int) []bool {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	exited := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		exited <- cli.Run(ctx, &cli.Env{
			Args: []string{"mcp"}, Stdin: sr, Stdout: sw, Stderr: &stderr,
			Getenv: func(string) string { return "" }, Cwd: s.dir,
		})
		sw.Close()
	}()
	defer func() {
		cw.Close() // end of input ends the session
		cancel()
		<-exited
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "security-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: declineAll})
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatalf("connecting to switchboard mcp: %v", err)
	}
	defer cs.Close()
	// The command connects its MCP servers in the background.
	if !mcptest.Poll(20*time.Second, func() bool {
		for tl, err := range cs.Tools(t.Context(), nil) {
			if err == nil && tl.Name == tool {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("switchboard mcp does not list %s", tool)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = mcpCall(t, cs, tool, args)
	}
	return out
}
