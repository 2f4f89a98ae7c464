package cli

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/chat"
)

// chatOfferings gives the terminal chat the MCP servers' prompts and
// resources (chat.Offerings) through the app, which checks each use as
// the person at the terminal.
type chatOfferings struct {
	f *app.ChatFeatures
}

func (o chatOfferings) Prompts(ctx context.Context) ([]chat.Prompt, error) {
	var out []chat.Prompt
	for _, p := range o.f.Prompts(ctx) {
		cp := chat.Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			cp.Arguments = append(cp.Arguments, chat.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, cp)
	}
	return out, nil
}

func (o chatOfferings) Resources(ctx context.Context) ([]chat.Resource, error) {
	var out []chat.Resource
	for _, r := range o.f.Resources(ctx) {
		out = append(out, chat.Resource{URI: r.URI, Name: r.Name, Description: r.Description})
	}
	return out, nil
}

func (o chatOfferings) Complete(ctx context.Context, req chat.CompleteRequest) ([]string, error) {
	c, err := o.f.Complete(ctx, app.CompleteRequest{Ref: app.CompleteRef{Prompt: req.Prompt}, Argument: req.Argument, Value: req.Value, Context: req.Context})
	if err != nil {
		return nil, err
	}
	return c.Values, nil
}

func (o chatOfferings) Expand(ctx context.Context, req *app.RunRequest, add *chat.Additions) error {
	return o.f.Expand(ctx, req, add.Prompt, add.Arguments, add.URIs)
}
