package app

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/version"
)

// GatewayOptions choose who the MCP gateway serves.
type GatewayOptions struct {
	// Permit reports whether a caller may see and call a tool; nil permits
	// every tool (stdio, where the user who launched the process is the
	// only caller).
	Permit func(ctx context.Context, caller mcpserve.Caller, e tools.Entry) bool
	// AllowedHosts and AllowedOrigins extend the HTTP handler's DNS
	// rebinding checks.
	AllowedHosts, AllowedOrigins []string
}

// Gateway builds the MCP server that re-exposes the whole catalogue, under
// the approval policy of the config (asked of the client by elicitation)
// and with every call in the audit trail. The caller must Close it.
func (a *App) Gateway(ctx context.Context, o GatewayOptions) (*mcpserve.Server, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	pol := policy(a.cfg.Approvals)
	return mcpserve.New(a.registry, &mcpserve.Options{
		Name:         "switchboard",
		Version:      version.String(),
		Instructions: "Switchboard: every tool of the configured MCP servers, OpenAPI services and built-in tools, named server__tool.",
		Logger:       a.logger.With(logKeyComponent, "mcpserve"),
		Permit:       o.Permit,
		Policy:       func(e tools.Entry) mcpserve.Action { return mcpserve.Action(pol.Decide(e)) },
		Audit:        st,
		Local:        mcpserve.Caller{ID: "local", Name: "local"},
		AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins,
		ApprovalTimeout: a.cfg.Approvals.Timeout,
		SessionTimeout:  a.cfg.Server.MCPSessionIdle,
		MaxSessions:     a.cfg.Server.MCPSessionsPerUser,
		SessionKey:      []byte(a.cfg.Server.MCPSessionKey.Value()),
	}), nil
}
