package app

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// What MCP servers offer besides tools, as `switchboard prompts` and
// `switchboard resources` show it. The gateway serves them too, under the
// caller's permissions (see mcpserve.Features).
type (
	Prompt           = mcphost.Prompt
	PromptResult     = mcphost.PromptResult
	Resource         = mcphost.Resource
	ResourceTemplate = mcphost.ResourceTemplate
	ResourceContents = mcphost.ResourceContents
)

// Prompts lists the prompts of the named MCP server; it fails with an
// error wrapping tools.ErrUnavailable when the server is not connected.
func (a *App) Prompts(ctx context.Context, server string) ([]Prompt, error) {
	return a.pool.Prompts(ctx, server)
}

// GetPrompt expands the named prompt of an MCP server with args.
func (a *App) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*PromptResult, error) {
	return a.pool.GetPrompt(ctx, server, name, args)
}

// Resources lists the resources and resource templates of the named MCP
// server. It returns what it could list, with the errors joined.
func (a *App) Resources(ctx context.Context, server string) ([]Resource, []ResourceTemplate, error) {
	res, err := a.pool.Resources(ctx, server)
	tpl, terr := a.pool.ResourceTemplates(ctx, server)
	return res, tpl, errors.Join(err, terr)
}

// ReadResource reads one resource of the named MCP server.
func (a *App) ReadResource(ctx context.Context, server, uri string) ([]ResourceContents, error) {
	return a.pool.ReadResource(ctx, server, uri)
}
