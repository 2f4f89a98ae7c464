package mcpserve

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Features is what the gateway needs of the upstream MCP servers to serve
// their prompts and resources: the app fills it from the host's pool. Who
// may see, get, read and complete what is decided by [gate.Offerings],
// which the REST API shares; this file only speaks MCP.
type Features interface {
	gate.Features
	// FeaturesChanged returns a channel closed at the next change of an
	// upstream server's prompt or resource list. Take it before listing,
	// then take a new one after each close.
	FeaturesChanged() <-chan struct{}
}

// featureAgent labels the audit records of gets, reads and refused
// completions made through the gateway.
const featureAgent = "mcp:http"

// serveFeatures is receiving middleware that answers the prompts,
// resources and completion methods from [Options].Features through the
// gate's [gate.Offerings]. It never calls next for them: the SDK's own
// prompt and resource lists stay empty.
func (s *Server) serveFeatures(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.offers == nil {
			return next(ctx, method, req)
		}
		caller := callerOf(ctx)
		switch r := req.(type) {
		case *mcp.ListPromptsRequest:
			return s.listPrompts(ctx, &caller), nil
		case *mcp.GetPromptRequest:
			return s.getPrompt(ctx, &caller, r.Params)
		case *mcp.ListResourcesRequest:
			return s.listResources(ctx, &caller), nil
		case *mcp.ListResourceTemplatesRequest:
			return s.listTemplates(ctx, &caller), nil
		case *mcp.ReadResourceRequest:
			return s.readResource(ctx, &caller, r.Params)
		case *mcp.CompleteRequest:
			return s.complete(ctx, &caller, r.Params)
		}
		return next(ctx, method, req)
	}
}

// listPrompts lists the prompts of every upstream server the caller may
// get.
func (s *Server) listPrompts(ctx context.Context, caller *Caller) *mcp.ListPromptsResult {
	out := &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}
	for _, p := range s.offers.Prompts(ctx, caller) {
		mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		out.Prompts = append(out.Prompts, mp)
	}
	return out
}

// listResources lists the resources of every upstream server whose whole
// catalogue the caller may use, under gateway URIs.
func (s *Server) listResources(ctx context.Context, caller *Caller) *mcp.ListResourcesResult {
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for _, r := range s.offers.Resources(ctx, caller) {
		out.Resources = append(out.Resources, &mcp.Resource{
			URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size,
		})
	}
	return out
}

// listTemplates lists resource templates like listResources.
func (s *Server) listTemplates(ctx context.Context, caller *Caller) *mcp.ListResourceTemplatesResult {
	out := &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}
	for _, t := range s.offers.Templates(ctx, caller) {
		out.ResourceTemplates = append(out.ResourceTemplates, &mcp.ResourceTemplate{
			URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType,
		})
	}
	return out
}

// getPrompt expands one prompt, if the caller may get it.
func (s *Server) getPrompt(ctx context.Context, caller *Caller, p *mcp.GetPromptParams) (mcp.Result, error) {
	if p == nil || p.Name == "" {
		return nil, invalidParams("prompts/get needs the name of a prompt, as prompts/list shows it (server__prompt)")
	}
	res, err := s.offers.GetPrompt(ctx, caller, featureAgent, p.Name, p.Arguments)
	if err != nil {
		return nil, featureError(err)
	}
	out := &mcp.GetPromptResult{Description: res.Description, Messages: make([]*mcp.PromptMessage, 0, len(res.Messages))}
	for _, m := range res.Messages {
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: mcpContent(m.Content)})
	}
	return out, nil
}

// readResource reads one resource through the server its URI names, if the
// caller may use that whole server.
func (s *Server) readResource(ctx context.Context, caller *Caller, p *mcp.ReadResourceParams) (mcp.Result, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/read needs the uri of a resource, as resources/list shows it")
	}
	rcs, err := s.offers.ReadResource(ctx, caller, featureAgent, p.URI)
	if gate.IsUnknown(err) {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	if err != nil {
		return nil, featureError(err)
	}
	out := &mcp.ReadResourceResult{Contents: make([]*mcp.ResourceContents, 0, len(rcs))}
	for _, c := range rcs {
		out.Contents = append(out.Contents, &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
	}
	return out, nil
}

// complete relays completion/complete to the server owning the prompt or
// resource template referred to, with the names mapped back to its own.
func (s *Server) complete(ctx context.Context, caller *Caller, p *mcp.CompleteParams) (mcp.Result, error) {
	if p == nil || p.Ref == nil {
		return nil, invalidParams("completion/complete needs a ref: {type: ref/prompt, name} or {type: ref/resource, uri}")
	}
	req := tools.CompleteRequest{Argument: p.Argument.Name, Value: p.Argument.Value}
	switch p.Ref.Type {
	case "ref/prompt":
		req.Ref.Prompt = p.Ref.Name
	case "ref/resource":
		req.Ref.Template = p.Ref.URI
	default:
		return nil, invalidParams(fmt.Sprintf("completion/complete: ref type %q is neither ref/prompt nor ref/resource", p.Ref.Type))
	}
	if p.Context != nil {
		req.Context = p.Context.Arguments
	}
	c, err := s.offers.Complete(ctx, caller, featureAgent, req)
	if err != nil {
		return nil, featureError(err)
	}
	values := c.Values
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: c.Total, HasMore: c.HasMore}}, nil
}

// featureError words a refusal as invalid params (what the gateway has
// always answered); an upstream server's own error passes as it is.
func featureError(err error) error {
	var fe *gate.FeatureError
	var ref *gate.Refusal
	if errors.As(err, &fe) || errors.As(err, &ref) {
		return invalidParams(err.Error())
	}
	return err
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// capabilities are the server's: tools with list_changed always, even
// while the catalogue is empty, since servers connecting later will fill
// it; prompts, resources and completions when features are served. Not logging, the
// SDK's default, since the gateway sends no log messages to clients.
func capabilities(features bool) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if features {
		c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
		c.Completions = &mcp.CompletionCapabilities{}
	}
	return c
}

// followFeatures tells connected clients, until Close, that the prompt and
// resource lists changed whenever an upstream server's did.
func (s *Server) followFeatures() {
	defer s.wg.Done()
	changed := s.opts.Features.FeaturesChanged()
	for {
		select {
		case <-changed:
			changed = s.opts.Features.FeaturesChanged()
			s.announceFeatures()
		case <-s.ctx.Done():
			return
		}
	}
}

// changeMarker is the name and URI of an entry announceFeatures adds to the
// SDK's own (otherwise empty) lists and removes at once. No client sees it:
// serveFeatures answers the lists.
const changeMarker = gate.URIScheme + "-/changed"

// announceFeatures sends notifications/prompts/list_changed and
// resources/list_changed to every session through the SDK, which sends
// them as each session's protocol version asks (on the session before
// 2026-07-28, to subscribed listeners after) and debounces them. The SDK
// announces only changes to its own lists, so one is made and undone.
func (s *Server) announceFeatures() {
	s.mcp.AddPrompt(&mcp.Prompt{Name: changeMarker}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, invalidParams("no such prompt")
	})
	s.mcp.RemovePrompts(changeMarker)
	s.mcp.AddResource(&mcp.Resource{URI: changeMarker, Name: changeMarker}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError(r.Params.URI)
	})
	s.mcp.RemoveResources(changeMarker)
}
