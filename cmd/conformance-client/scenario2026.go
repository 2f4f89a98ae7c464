package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// The client steps of the 2026-07-28 scenarios (suite 0.2.0-alpha.12). Each
// works from the tools mcphost listed on connect, as a Switchboard agent
// would; what is judged (headers, request state, schema keywords) is done by
// mcphost and go-sdk underneath, never here.

// echoSchema sends the schema mcphost keeps for json_schema_2020_12_tool back
// through json_schema_echo, so the suite can see which 2020-12 keywords
// survived listing (SEP-1613, SEP-2106).
func echoSchema(ctx context.Context, p *mcphost.Pool, _ *confContext, log io.Writer) error {
	const focal, echo = "json_schema_2020_12_tool", "json_schema_echo"
	ts := p.Tools()
	var schema json.RawMessage
	for _, t := range ts {
		if t.Info().Name == focal {
			schema = t.Info().InputSchema
		}
	}
	if schema == nil {
		return fmt.Errorf("the server listed no tool %q", focal)
	}
	args, err := json.Marshal(map[string]json.RawMessage{"schema": schema})
	if err != nil {
		return fmt.Errorf("encoding the echo arguments: %w", err)
	}
	return callTool(ctx, ts, echo, args, log)
}

// callMRTRTools calls the four tools of the multi-round-trip scenario in
// order; the server answers the first two with input_required, which mcphost
// fulfils through the Elicitation hook and retries with the request state.
func callMRTRTools(ctx context.Context, p *mcphost.Pool, _ *confContext, log io.Writer) error {
	ts := p.Tools()
	var errs []error
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		errs = append(errs, callTool(ctx, ts, name, json.RawMessage(`{}`), log))
	}
	return errors.Join(errs...)
}

// callContextTools makes the calls the scenario context lists, with their
// arguments as given.
func callContextTools(ctx context.Context, p *mcphost.Pool, cc *confContext, log io.Writer) error {
	if len(cc.ToolCalls) == 0 {
		return fmt.Errorf("$%s lists no toolCalls", envContext)
	}
	ts := p.Tools()
	var errs []error
	for _, c := range cc.ToolCalls {
		errs = append(errs, callTool(ctx, ts, c.Name, c.Arguments, log))
	}
	return errors.Join(errs...)
}

// callEveryTool calls each tool mcphost kept; tools whose x-mcp-header
// annotations are invalid must not be among them, so the suite sees no
// call to those.
func callEveryTool(ctx context.Context, p *mcphost.Pool, _ *confContext, log io.Writer) error {
	ts := p.Tools()
	var errs []error
	for _, t := range ts {
		errs = append(errs, callTool(ctx, ts, t.Info().Name, json.RawMessage(`{"region":"us-west1"}`), log))
	}
	return errors.Join(errs...)
}

// useEveryFeature calls a tool, reads a resource and gets a prompt, each the
// first the server lists, so the suite sees the Mcp-Method and Mcp-Name
// headers mcphost sends on every kind of request.
func useEveryFeature(ctx context.Context, p *mcphost.Pool, _ *confContext, log io.Writer) error {
	var errs []error
	if ts := p.Tools(); len(ts) > 0 {
		errs = append(errs, callTool(ctx, ts, ts[0].Info().Name, json.RawMessage(`{}`), log))
	}
	rs, err := p.Resources(ctx, serverName)
	errs = append(errs, err)
	if len(rs) > 0 {
		_, err := p.ReadResource(ctx, serverName, rs[0].URI)
		errs = append(errs, err)
	}
	ps, err := p.Prompts(ctx, serverName)
	errs = append(errs, err)
	if len(ps) > 0 {
		_, err := p.GetPrompt(ctx, serverName, ps[0].Name, nil)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
