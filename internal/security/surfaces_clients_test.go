package security

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/app"
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
	call  func(t *testing.T, s *surfaceStack, key, tool, args string) bool
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
	{name: "MCP on stdio", local: true, call: callMCPStdio},
	{name: "agent run", call: runWith("")},
	{name: "@mention", agent: "helper", call: runWith("@helper ")},
	{
		name: "assistant tool",
		read: toolCall{"list_agents", `{}`}, ask: toolCall{"assign_server", `{"agent":"helper","server":"test"}`},
		call: runWith(""),
	},
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
	code, b := s.do(t, key, http.MethodPost, "/api/v1/conversations", map[string]string{"title": "t"})
	var conv struct{ ID string }
	if json.Unmarshal(b, &conv) != nil || code/100 != 2 {
		t.Fatalf("creating a conversation: %d %s", code, b)
	}
	body, _ := json.Marshal(map[string]string{"message": message})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/api/v1/conversations/"+conv.ID+"/messages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
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

// callMCPStdio calls through the gateway `switchboard mcp` serves on
// stdio (the app's Gateway on in-process pipes).
func callMCPStdio(t *testing.T, s *surfaceStack, _ string, tool, args string) bool {
	gw, err := s.app.Gateway(t.Context(), app.GatewayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- gw.ServeStdio(ctx, sr, sw) }()
	defer func() {
		cancel()
		cw.Close()
		<-served
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "security-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: declineAll})
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v", err)
	}
	defer cs.Close()
	return mcpCall(t, cs, tool, args)
}
