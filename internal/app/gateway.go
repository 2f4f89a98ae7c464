package app

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/version"
)

// GatewayOptions choose who the MCP gateway serves. Who may see and call
// which tool is the gate's: the HTTP caller's permissions travel with the
// caller (see mcpWithCaller); on stdio the local user may call every tool.
type GatewayOptions struct {
	// AllowedHosts and AllowedOrigins extend the HTTP handler's DNS
	// rebinding checks.
	AllowedHosts, AllowedOrigins []string
}

// Gateway builds the MCP server that re-exposes the whole catalogue, under
// the approval policy of the config (asked of the client by elicitation)
// and with every call in the audit trail. The caller must Close it.
func (a *App) Gateway(ctx context.Context, o GatewayOptions) (*mcpserve.Server, error) {
	g, err := a.Gate(ctx)
	if err != nil {
		return nil, err
	}
	// The store is open (the gate's audit log): a.replicas() says whether
	// it is shared.
	opts := &mcpserve.Options{
		Name:         "switchboard",
		Version:      version.String(),
		Instructions: "Switchboard: every tool of the configured MCP servers, OpenAPI services and built-in tools, named server__tool.",
		Logger:       a.logger.With(logKeyComponent, "mcpserve"),
		Local:        gate.Local(gate.LocalUser),
		AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins,
		ApprovalTimeout: a.cfg.Approvals.Timeout,
		SessionTimeout:  a.cfg.Server.MCPSessionIdle,
		MaxSessions:     a.cfg.Server.MCPSessionsPerUser,
		SessionKey:      []byte(a.cfg.Server.MCPSessionKey.Value()),
		Features:        poolFeatures{a.pool, &a.featureChanges},
	}
	// Replicas on one PostgreSQL database pass MCP clients' answers to
	// approval questions to the replica that asked, so that sessions need
	// no sticky routing. SQLite's feed stays in one process, which holds
	// all its sessions anyway.
	if sh := a.replicas(); sh != nil {
		opts.Answers, opts.Changes = sh.answers, sh.feed
	}
	// g: permissions, limit, policy and the audit log (the store).
	return mcpserve.New(a.registry, g, opts), nil
}
