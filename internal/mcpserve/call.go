package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// callTool handles tools/call for every served tool through the gate:
// permissions, the caller's tool-call limit, approval, audit, then [tools.Registry.Call] with progress forwarded. Cancellation
// needs no code here: the SDK cancels ctx on notifications/cancelled (and
// when the session ends), and the registry call honours ctx.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	name := req.Params.Name
	args := req.Params.Arguments
	caller := callerOf(ctx)
	e, ok := s.reg.Lookup(name)
	if !ok {
		return nil, unknownTool(name)
	}
	rec := store.AuditRecord{User: caller.Name, Tool: name, Server: ruleServer(e.Origin), Arguments: args, Agent: "mcp:http"}
	if _, stdio := ctx.Value(lifetimeKey{}).(context.Context); stdio {
		rec.Agent = "mcp:stdio"
	} else if req.Session != nil {
		rec.ConversationID = req.Session.ID()
	}
	allowed := s.permitted(ctx, caller, e)
	if allowed {
		if pending := s.askFirst(req, e); pending != nil {
			// The question goes back in this result; the call is audited
			// (and counted) in the round that carries the answer.
			return pending, nil
		}
		// Over the limit, a call is refused before anything is written:
		// a flood of calls must not become a flood of audit writes.
		if err := s.opts.Gate.Limit(ctx, &caller); err != nil {
			return errorResult(fmt.Sprintf("tool %s was not called: %v", name, err)), nil
		}
	}

	call, err := s.opts.Gate.Begin(ctx, rec)
	if err != nil {
		s.logger.ErrorContext(ctx, "call not audited", logKeyTool, name, logKeyErr, err)
		return errorResult(fmt.Sprintf("the call of %s was not made: Switchboard could not record it in its audit log", name)), nil
	}
	// out is denied until the tool runs.
	out := store.AuditResult{Outcome: store.OutcomeDenied}
	defer func() { call.Finish(ctx, out) }()

	if !allowed {
		// Indistinguishable from a missing tool, so that permissions do not
		// reveal which tools exist.
		out.Approval = store.AuditForbidden
		return nil, unknownTool(name)
	}
	approval, refusal := s.approve(ctx, req, e)
	out.Approval = approval
	if refusal != "" {
		return errorResult(refusal), nil
	}

	relay := s.startProgress(ctx, req)
	res, err := s.reg.Call(ctx, name, &tools.CallRequest{Arguments: args, Progress: relay.report})
	relay.stop()
	out.Outcome = store.OutcomeOf(err, err == nil && res.IsError)
	if out.Outcome == store.OutcomeError {
		out.Error = err.Error()
	}
	if err != nil {
		switch {
		case errors.Is(err, tools.ErrNotFound):
			return nil, unknownTool(name)
		case errors.Is(err, tools.ErrUnavailable):
			return errorResult(fmt.Sprintf("tool %s is unavailable: the server that provides it is not connected right now; try again later", name)), nil
		case ctx.Err() != nil:
			// The client cancelled or went away; nobody reads the answer.
			return nil, err
		default:
			s.logger.WarnContext(ctx, "tool call failed", logKeyTool, name, logKeyErr, err)
			return errorResult(fmt.Sprintf("calling %s failed: %v", name, err)), nil
		}
	}
	return mcpResult(res), nil
}

type lifetimeKey struct{}

// callContext returns ctx, cancelled also when the Server closes or when
// the context of the stdio session ends: the SDK closes a session only
// after its calls returned, so calls must be told to stop first.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stops := []func() bool{context.AfterFunc(s.ctx, cancel)}
	if life, ok := ctx.Value(lifetimeKey{}).(context.Context); ok {
		stops = append(stops, context.AfterFunc(life, cancel))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// mcpResult maps a catalogue result onto MCP's.
func mcpResult(r *tools.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(r.Content)), IsError: r.IsError}
	for _, c := range r.Content {
		out.Content = append(out.Content, mcpContent(c))
	}
	if len(r.Structured) > 0 && json.Valid(r.Structured) {
		out.StructuredContent = r.Structured
	}
	return out
}

func mcpContent(c tools.Content) mcp.Content {
	switch c.Type {
	case tools.ContentText:
		return &mcp.TextContent{Text: c.Text}
	case tools.ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}
	case tools.ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType}
	case tools.ContentResource:
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Data}}
	case tools.ContentResourceLink:
		return &mcp.ResourceLink{URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}
	default:
		// A kind this version does not know: keep what can be kept as text
		// rather than dropping the block silently.
		return &mcp.TextContent{Text: fmt.Sprintf("[content of type %q not supported by Switchboard's MCP gateway]%s", c.Type, prefixed(c.Text))}
	}
}

func prefixed(text string) string {
	if text == "" {
		return ""
	}
	return " " + text
}
