package mcphost

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The records of prompts and resources are the tools package's, shared
// with the gateway that serves them (mcpserve).
type (
	Resource         = tools.Resource
	ResourceTemplate = tools.ResourceTemplate
	ResourceContents = tools.ResourceContents
	Prompt           = tools.Prompt
	PromptArgument   = tools.PromptArgument
	PromptMessage    = tools.PromptMessage
	PromptResult     = tools.PromptResult
)

// Resources lists every resource of the named server (all pages). It fails
// with an error wrapping [tools.ErrUnavailable] when the server is down.
func (p *Pool) Resources(ctx context.Context, server string) ([]Resource, error) {
	_, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	var out []Resource
	for r, err := range c.cs.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing resources of mcp server %q: %w", server, err)
		}
		out = append(out, Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
	}
	return out, nil
}

// ResourceTemplates lists every resource template of the named server.
func (p *Pool) ResourceTemplates(ctx context.Context, server string) ([]ResourceTemplate, error) {
	_, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	var out []ResourceTemplate
	for r, err := range c.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing resource templates of mcp server %q: %w", server, err)
		}
		out = append(out, ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ReadResource reads one resource of the named server.
func (p *Pool) ReadResource(ctx context.Context, server, uri string) ([]ResourceContents, error) {
	s, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.callTimeout())
	defer cancel()
	res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("reading resource %q of mcp server %q: %w", uri, server, err)
	}
	out := make([]ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		if rc != nil {
			out = append(out, ResourceContents{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob})
		}
	}
	return out, nil
}

// Subscribe asks the named server to send notifications/resources/updated
// for uri; they arrive at [Options.OnResourceUpdated]. Subscriptions end
// when the connection does.
func (p *Pool) Subscribe(ctx context.Context, server, uri string) error {
	_, c, err := p.conn(server)
	if err != nil {
		return err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("subscribing to %q on mcp server %q: %w", uri, server, err)
	}
	return nil
}

// Unsubscribe cancels a [Pool.Subscribe].
func (p *Pool) Unsubscribe(ctx context.Context, server, uri string) error {
	_, c, err := p.conn(server)
	if err != nil {
		return err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	if err := c.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("unsubscribing from %q on mcp server %q: %w", uri, server, err)
	}
	return nil
}

// Prompts lists every prompt of the named server.
func (p *Pool) Prompts(ctx context.Context, server string) ([]Prompt, error) {
	_, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	var out []Prompt
	for pr, err := range c.cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing prompts of mcp server %q: %w", server, err)
		}
		np := Prompt{Name: pr.Name, Title: pr.Title, Description: pr.Description}
		for _, a := range pr.Arguments {
			if a != nil {
				np.Arguments = append(np.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, np)
	}
	return out, nil
}

// GetPrompt expands the named prompt of the named server with args.
func (p *Pool) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*PromptResult, error) {
	s, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.callTimeout())
	defer cancel()
	res, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("getting prompt %q of mcp server %q: %w", name, server, err)
	}
	out := &PromptResult{Description: res.Description}
	for _, m := range res.Messages {
		if m != nil {
			out.Messages = append(out.Messages, PromptMessage{Role: string(m.Role), Content: contentFromMCP(m.Content)})
		}
	}
	return out, nil
}

// featuresChanged handles a prompt or resource list change of the
// server: it is re-listed as on a tool list change, and
// [Options.OnFeaturesChanged] is told.
func (s *server) featuresChanged() {
	s.notifyChanged()
	if f := s.opts.OnFeaturesChanged; f != nil {
		f(s.cfg.Name)
	}
}

// Complete asks the named server for values of a prompt argument or a
// resource template variable (completion/complete). A server that does
// not offer completions answers with an error.
func (p *Pool) Complete(ctx context.Context, server string, req tools.CompleteRequest) (*tools.Completion, error) {
	s, c, err := p.conn(server)
	if err != nil {
		return nil, err
	}
	ctx, unbind := c.bind(ctx)
	defer unbind()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.callTimeout())
	defer cancel()
	ref := &mcp.CompleteReference{Type: "ref/prompt", Name: req.Ref.Prompt}
	if req.Ref.Prompt == "" {
		ref = &mcp.CompleteReference{Type: "ref/resource", URI: req.Ref.Template}
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: req.Argument, Value: req.Value}}
	if len(req.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: req.Context}
	}
	res, err := c.cs.Complete(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("completing %q on mcp server %q: %w", req.Argument, server, err)
	}
	return &tools.Completion{Values: res.Completion.Values, Total: res.Completion.Total, HasMore: res.Completion.HasMore}, nil
}
