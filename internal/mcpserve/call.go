package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// callTool handles tools/call for every served tool (and for held ones,
// through filterList) through the gate's one entry point (see
// [gate.Gate.Call]): permissions, the caller's tool-call limit, approval
// asked by elicitation, audit, then [tools.Registry.Call] with progress
// forwarded. Cancellation needs no code here: the SDK cancels ctx on
// notifications/cancelled (and when the session ends), and the registry
// call honours ctx.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	life, _ := ctx.Value(lifetimeKey{}).(context.Context)
	res, answer, err := s.call(ctx, req, life)
	if res != nil {
		return mcpResult(res), nil
	}
	return answer, err
}

// call is callTool's work. life is the stdio session's context when the
// call came over stdio (nil over HTTP), given rather than looked up: the
// direct path knows it has none, and a miss walks the whole context
// chain. The catalogue's result comes back as it is, so that the direct
// path can write it without converting it to the SDK's types; anything
// else (a question to ask first, a refusal, a failure) is the answer.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest, life context.Context) (*tools.Result, *mcp.CallToolResult, error) {
	ctx, cancel := s.callContext(ctx, life)
	defer cancel()
	name := req.Params.Name
	caller := callerOf(ctx)
	if e, ok := s.reg.Lookup(name); ok && s.permitted(ctx, caller, e) {
		if pending := s.askFirst(req, e); pending != nil {
			// The question goes back in this result; the call is audited
			// (and counted) in the round that carries the answer.
			return nil, pending, nil
		}
	}
	sf := &gate.Surface{Catalog: s.reg, Agent: "mcp:http", Asking: gate.AskElicit, Ask: func(ctx context.Context, _ *gate.Request, e tools.Entry) (store.AuditApproval, string) {
		return s.approve(ctx, req, e)
	}}
	greq := &gate.Request{Caller: &caller, Name: name, Arguments: req.Params.Arguments}
	if life != nil {
		sf.Agent = "mcp:stdio"
	} else if req.Session != nil {
		greq.ConversationID = req.Session.ID()
	}
	relay := s.startProgress(ctx, req)
	greq.Progress = relay.report
	out := s.gate.Call(ctx, sf, greq)
	relay.stop()
	var ref *gate.Refusal
	switch {
	case out.Err == nil:
		return out.Result, nil, nil
	case errors.As(out.Err, &ref):
		answer, err := refusalResult(name, ref)
		return nil, answer, err
	case errors.Is(out.Err, tools.ErrNotFound):
		return nil, nil, unknownTool(name)
	case errors.Is(out.Err, tools.ErrUnavailable):
		return nil, errorResult(fmt.Sprintf("tool %s is unavailable: the server that provides it is not connected right now; try again later", name)), nil
	case ctx.Err() != nil:
		// The client cancelled or went away; nobody reads the answer.
		return nil, nil, out.Err
	}
	s.logger.WarnContext(ctx, "tool call failed", logKeyTool, name, logKeyErr, out.Err)
	return nil, errorResult(fmt.Sprintf("calling %s failed: %v", name, out.Err)), nil
}

// refusalResult is the MCP answer of a call the gate refused. A forbidden
// tool is indistinguishable from a missing one, so that permissions do
// not reveal which tools exist.
func refusalResult(name string, ref *gate.Refusal) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(ref, gate.ErrUnknownTool), ref.Approval == store.AuditForbidden:
		return nil, unknownTool(name)
	case errors.Is(ref, gate.ErrNotRecorded):
		return errorResult(fmt.Sprintf("the call of %s was not made: Switchboard could not record it in its audit log", name)), nil
	case ref.Approval == "":
		return errorResult(fmt.Sprintf("tool %s was not called: %v", name, ref)), nil // the rate limit
	}
	return errorResult(ref.Error()), nil
}

type lifetimeKey struct{}

// callContext returns ctx, cancelled also when the Server closes or when
// life, the context of the stdio session (nil over HTTP), ends: the SDK
// closes a session only after its calls returned, so calls must be told
// to stop first.
func (s *Server) callContext(ctx, life context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	if life == nil {
		return ctx, func() {
			stop()
			cancel()
		}
	}
	stopLife := context.AfterFunc(life, cancel)
	return ctx, func() {
		stop()
		stopLife()
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
