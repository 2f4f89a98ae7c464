package app

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// chatFeatureAgent labels the audit records of the prompts the terminal
// chat gets and the resources it reads.
const chatFeatureAgent = "chat"

// ChatFeatures are the MCP servers' prompts and resources as one person
// at the terminal chat may use them: every listing, get, read and
// completion goes through gate.Offerings as that caller, so it is
// permitted, denied and audited as on /mcp and the REST API.
type ChatFeatures struct {
	o *gate.Offerings
	c gate.Caller
}

// ChatFeatures returns the prompts and resources for user. Nil
// permissions are the local user's: everything. Permissions given are
// tool-name globs, as a configured user has them.
func (a *App) ChatFeatures(ctx context.Context, user string, permissions []string) (*ChatFeatures, error) {
	g, err := a.Gate(ctx)
	if err != nil {
		return nil, err
	}
	return &ChatFeatures{o: g.Offerings(poolFeatures{a.pool, &a.featureChanges}), c: gate.Caller{Name: user, Permissions: permissions}}, nil
}

// Prompts lists the prompts the caller may get, named server__prompt.
func (f *ChatFeatures) Prompts(ctx context.Context) []tools.Prompt { return f.o.Prompts(ctx, &f.c) }

// Resources lists the resources the caller may read, by their
// switchboard:// URIs.
func (f *ChatFeatures) Resources(ctx context.Context) []tools.Resource {
	return f.o.Resources(ctx, &f.c)
}

// Complete asks the server for values of a prompt's argument or a
// template's variable.
func (f *ChatFeatures) Complete(ctx context.Context, req tools.CompleteRequest) (*tools.Completion, error) {
	return f.o.Complete(ctx, &f.c, chatFeatureAgent, req)
}

// Expand fills req from the prompt named prompt (when not "") run with
// args, and attaches the resources uris: the prompt's last user message
// becomes req.Message, its earlier ones req.Prelude, and the resources'
// contents are added to req.Attachments, as the REST API does.
func (f *ChatFeatures) Expand(ctx context.Context, req *agent.Request, prompt string, args map[string]string, uris []string) error {
	if prompt != "" {
		res, err := f.o.GetPrompt(ctx, &f.c, chatFeatureAgent, prompt, args)
		if err != nil {
			return err
		}
		text, prelude, rest, err := server.PromptTurn(prompt, res)
		if err != nil {
			return err
		}
		req.Message, req.Prelude = text, prelude
		req.Attachments = append(req.Attachments, rest...)
	}
	if len(uris) > server.MaxResources {
		return fmt.Errorf("%d resources attached; at most %d fit in one message", len(uris), server.MaxResources)
	}
	size := 0
	for _, uri := range uris {
		rcs, err := f.o.ReadResource(ctx, &f.c, chatFeatureAgent, uri)
		if err != nil {
			return err
		}
		for _, rc := range rcs {
			if size += len(rc.Text) + len(rc.Blob); size > server.MaxResourceBytes {
				return fmt.Errorf("the attached resources are larger than %d bytes together; attach fewer or smaller ones", server.MaxResourceBytes)
			}
			p := server.ResourcePart(rc)
			if p.URI == "" {
				p.URI = uri
			}
			req.Attachments = append(req.Attachments, p)
		}
	}
	return nil
}
