package app

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
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
		Logger:       a.logger.With("component", "mcpserve"),
		Permit:       o.Permit,
		Policy:       func(e tools.Entry) mcpserve.Action { return mcpserve.Action(pol.Decide(e)) },
		Audit:        gatewayAudit{st},
		Local:        mcpserve.Caller{ID: "local", Name: "local"},
		AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins,
		ApprovalTimeout: a.cfg.Approvals.Timeout,
	}), nil
}

// gatewayAudit records the gateway's calls in the store's audit trail.
type gatewayAudit struct{ st store.Store }

func (g gatewayAudit) Begin(ctx context.Context, r mcpserve.CallRecord) (string, error) {
	server := r.Origin.Server
	if r.Origin.Kind == tools.KindBuiltin {
		server = "builtin"
	}
	return g.st.BeginAudit(ctx, store.AuditRecord{
		User: r.Caller.Name, Tool: r.Tool, Server: server, Arguments: r.Arguments,
		Agent: "mcp:" + r.Transport, ConversationID: r.Session,
	})
}

func (g gatewayAudit) Finish(ctx context.Context, id string, o mcpserve.Outcome) {
	res := store.AuditResult{Duration: o.Duration, Approval: gatewayApproval(o.Approval)}
	switch {
	case errors.Is(o.Err, context.Canceled):
		res.Outcome = store.OutcomeCancelled
	case errors.Is(o.Err, context.DeadlineExceeded):
		res.Outcome = store.OutcomeTimeout
	case o.Err != nil:
		res.Outcome, res.Error = store.OutcomeError, o.Err.Error()
	case !o.Called:
		res.Outcome = store.OutcomeDenied
	case o.IsError:
		res.Outcome = store.OutcomeToolError
	default:
		res.Outcome = store.OutcomeOK
	}
	// The gateway has no one to report a failed write to; the record
	// stays "running" and the next start marks it interrupted.
	_ = g.st.FinishAudit(ctx, id, res)
}

func gatewayApproval(a mcpserve.Approval) string {
	switch a {
	case mcpserve.ApprovalNotNeeded:
		return store.AuditAutoApproved
	case mcpserve.ApprovalGranted:
		return store.AuditApproved
	default:
		return store.AuditDenied
	}
}
