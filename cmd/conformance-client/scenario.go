package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The suite's contract with a client under test.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// scenarioTimeout bounds a whole scenario; the suite kills the client after
// 30s by default, and an error message from us is more useful than that.
const scenarioTimeout = 25 * time.Second

// scenario is what the client does once connected: list the tools (always,
// as Switchboard does on every connect) and then call one of them.
type scenario struct {
	// tool is called after connecting; "" means connecting is the test.
	tool string
	args json.RawMessage
	// auth marks the OAuth scenarios: the server demands authorization, and
	// the client may be given pre-registered credentials in the context.
	auth bool
	// clientCredentials marks the machine-to-machine OAuth scenarios: the
	// client uses the client_credentials grant with the context's secret.
	clientCredentials bool
	// steps, when set, runs instead of the one tool call: the scenarios of
	// protocol 2026-07-28 (scenario2026.go) call several tools, or one
	// chosen from what tools/list returned.
	steps func(ctx context.Context, p *mcphost.Pool, cc *confContext, log io.Writer) error
}

// lookupScenario returns what to do for a client scenario of the
// conformance suite (0.1.16 lists 26, 0.2.0-alpha.12 lists 48:
// `conformance list --client`).
func lookupScenario(name string) (scenario, error) {
	switch {
	case name == "initialize":
		return scenario{}, nil
	case name == "tools_call":
		return scenario{tool: "add_numbers", args: json.RawMessage(`{"a":5,"b":3}`)}, nil
	case name == "elicitation-sep1034-client-defaults":
		// The server elicits with defaults for every field; the client
		// accepts without filling any, and must send the defaults back.
		return scenario{tool: "test_client_elicitation_defaults"}, nil
	case name == "sse-retry":
		// The server closes the call's stream with a retry hint; the
		// answer arrives on the stream the client reopens.
		return scenario{tool: "test_reconnection"}, nil
	case name == "request-metadata", name == "json-schema-ref-no-deref":
		// Connecting (server/discover or initialize, then tools/list) is
		// what these judge: the _meta envelope and version header on every
		// request, and no fetch of a network $ref in a listed schema.
		return scenario{}, nil
	case name == "http-standard-headers":
		return scenario{steps: useEveryFeature}, nil
	case name == "json-schema-2020-12-preservation":
		return scenario{steps: echoSchema}, nil
	case name == "sep-2322-client-request-state":
		return scenario{steps: callMRTRTools}, nil
	case name == "http-custom-headers":
		return scenario{steps: callContextTools}, nil
	case name == "http-invalid-tool-headers":
		return scenario{steps: callEveryTool}, nil
	case strings.HasPrefix(name, "auth/client-credentials-"):
		return scenario{tool: "test-tool", auth: true, clientCredentials: true}, nil
	case strings.HasPrefix(name, "auth/"):
		return scenario{tool: "test-tool", auth: true}, nil
	}
	return scenario{}, fmt.Errorf("unknown scenario %q: this client knows initialize, tools_call, "+
		"elicitation-sep1034-client-defaults, sse-retry, request-metadata, json-schema-*, "+
		"sep-2322-client-request-state, http-*-headers and auth/*", name)
}

// confContext is the scenario data the suite passes in MCP_CONFORMANCE_CONTEXT.
type confContext struct {
	Name         string `json:"name"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	// ToolCalls are the calls http-custom-headers asks the client to make.
	ToolCalls []contextCall `json:"toolCalls,omitempty"`
}

// contextCall is one tool call given in the scenario context.
type contextCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func parseContext(s string) (*confContext, error) {
	var c confContext
	if s == "" {
		return &c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("decoding $%s: %w", envContext, err)
	}
	return &c, nil
}

// session is one scenario run against one server URL.
type session struct {
	url      string
	scenario string
	cctx     *confContext
	log      io.Writer
}

const serverName = "conformance"

func (s *session) run(ctx context.Context, sc scenario) error {
	ctx, cancel := context.WithTimeout(ctx, scenarioTimeout)
	defer cancel()

	cfg := mcphost.ServerConfig{
		Name: serverName,
		URL:  s.url,
		// The suite's servers all speak Streamable HTTP; naming it keeps a
		// failure from being retried as legacy SSE, which would only blur
		// the error message.
		Transport: mcphost.TransportHTTP,
	}
	switch {
	case sc.clientCredentials:
		cfg.OAuth = &mcphost.OAuthConfig{
			Grant:        mcphost.GrantClientCredentials,
			ClientID:     s.cctx.ClientID,
			ClientSecret: s.cctx.ClientSecret,
		}
	case sc.auth && s.cctx.ClientID != "":
		cfg.OAuth = &mcphost.OAuthConfig{ClientID: s.cctx.ClientID, ClientSecret: s.cctx.ClientSecret}
	case sc.auth:
		// A published Client ID Metadata Document, as a deployed client
		// would have; servers without support fall back to registration.
		cfg.OAuth = &mcphost.OAuthConfig{ClientMetadataURL: "https://conformance-test.local/client-metadata.json"}
	}
	opts := &mcphost.Options{
		Logger:         slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		ConnectTimeout: 20 * time.Second,
		Elicitation:    acceptElicitation,
		Sampling:       answerSampling,
		OAuthRedirect:  followAuthorization,
	}
	pool := mcphost.NewPool([]mcphost.ServerConfig{cfg}, opts)
	defer pool.Close()
	pool.Start(ctx)

	st := pool.Status()
	if len(st) != 1 || st[0].State != mcphost.StateReady {
		var last string
		if len(st) == 1 {
			last = fmt.Sprintf("%s: %s", st[0].State, st[0].LastError)
		}
		return fmt.Errorf("connecting to %s: %s", s.url, last)
	}
	fmt.Fprintf(s.log, "connected: protocol %s, %d tools\n", st[0].ProtocolVersion, st[0].Tools)
	if sc.steps != nil {
		return sc.steps(ctx, pool, s.cctx, s.log)
	}
	if sc.tool == "" {
		return nil
	}
	return callTool(ctx, pool.Tools(), sc.tool, sc.args, s.log)
}

func callTool(ctx context.Context, ts []tools.Tool, name string, args json.RawMessage, log io.Writer) error {
	var tool tools.Tool
	var names []string
	for _, t := range ts {
		names = append(names, t.Info().Name)
		if t.Info().Name == name {
			tool = t
		}
	}
	if tool == nil {
		return fmt.Errorf("the server has no tool %q (it has %q)", name, names)
	}
	res, err := tool.Call(ctx, &tools.CallRequest{Arguments: args})
	if err != nil {
		return fmt.Errorf("calling %s: %w", name, err)
	}
	fmt.Fprintf(log, "%s: %s\n", name, res.Text())
	if res.IsError {
		return fmt.Errorf("calling %s: the tool reported an error: %s", name, res.Text())
	}
	return nil
}

// acceptElicitation accepts every request without filling in any field, the
// way a user who just presses OK would; the fields' schema defaults apply.
func acceptElicitation(context.Context, string, *tools.ElicitRequest) (*tools.ElicitResult, error) {
	return &tools.ElicitResult{Action: tools.ElicitAccept, Content: map[string]any{}}, nil
}

// answerSampling stands in for a model: no scenario judges the text.
func answerSampling(_ context.Context, _ string, req *mcphost.SamplingRequest) (*mcphost.SamplingResult, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("sampling request has no messages")
	}
	return &mcphost.SamplingResult{
		Content: tools.Content{Type: tools.ContentText, Text: "conformance-client has no model"},
		Model:   "none",
	}, nil
}
