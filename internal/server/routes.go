package server

import "net/http"

// route is one entry of the route table: the one list from which the mux
// is built and against which the OpenAPI document is checked.
type route struct {
	method  string
	pattern string
	access  access
	listing listing
	handle  func(s *Server) handlerFunc
}

// access says who may call a route.
type access int

const (
	// public routes answer anyone: probes, the scraper, the web pages.
	public access = iota
	// authenticated routes need a user and count against its rate limit.
	authenticated
	// admin routes need a user with the admin role: they change what every
	// user runs (agents, their servers) or read what only the operator
	// should (server stderr).
	admin
	// probe routes (/metrics, /readyz) need a user once users exist,
	// unless [Options].PublicProbes; they are not rate limited.
	probe
)

// listing says whether a route is in /api/openapi.json.
type listing int

const (
	documented listing = iota
	// undocumented routes (the web pages) are left out of the document.
	undocumented
)

// routes lists every route the server serves.
func routes() []route {
	return []route{
		{http.MethodGet, "/healthz", public, documented, (*Server).healthz},
		{http.MethodGet, "/readyz", probe, documented, (*Server).readyz},
		{http.MethodGet, "/metrics", probe, documented, (*Server).metricsRoute},
		{http.MethodGet, "/api/openapi.json", public, documented, (*Server).openapi},

		// OAuth discovery (RFC 9728, RFC 8414): standard documents, not
		// part of the REST API's OpenAPI description.
		{http.MethodGet, "/.well-known/oauth-protected-resource", public, undocumented, (*Server).resourceMetadataREST},
		{http.MethodGet, "/.well-known/oauth-protected-resource/mcp", public, undocumented, (*Server).resourceMetadataMCP},
		{http.MethodGet, "/.well-known/oauth-authorization-server", public, undocumented, (*Server).serverMetadata},
		{http.MethodPost, "/oauth/register", public, undocumented, (*Server).register},
		{http.MethodPost, "/oauth/revoke", public, undocumented, (*Server).revoke},
		{http.MethodGet, "/oauth/authorize", public, undocumented, (*Server).authorize},
		{http.MethodPost, "/oauth/token", public, undocumented, (*Server).token},
		// CORS preflights of the routes browser-based clients call.
		{http.MethodOptions, "/.well-known/oauth-protected-resource", public, undocumented, (*Server).preflight},
		{http.MethodOptions, "/.well-known/oauth-protected-resource/mcp", public, undocumented, (*Server).preflight},
		{http.MethodOptions, "/.well-known/oauth-authorization-server", public, undocumented, (*Server).preflight},
		{http.MethodOptions, "/oauth/token", public, undocumented, (*Server).preflight},
		{http.MethodOptions, "/oauth/register", public, undocumented, (*Server).preflight},
		{http.MethodOptions, "/oauth/revoke", public, undocumented, (*Server).preflight},

		// Sign-in through the OpenID provider (web UI sessions).
		{http.MethodGet, "/auth/login", public, undocumented, (*Server).login},
		{http.MethodGet, "/auth/callback", public, undocumented, (*Server).callback},
		{http.MethodPost, "/auth/logout", public, undocumented, (*Server).logout},

		{http.MethodGet, "/api/v1/me", authenticated, documented, (*Server).me},

		// The consent step of /oauth/authorize, as the signed-in user, and
		// the user's OAuth grants.
		{http.MethodGet, "/api/v1/oauth/consent", authenticated, documented, (*Server).consentInfo},
		{http.MethodPost, "/api/v1/oauth/consent", authenticated, documented, (*Server).consent},
		{http.MethodGet, "/api/v1/oauth/grants", authenticated, documented, (*Server).listGrants},
		{http.MethodDelete, "/api/v1/oauth/grants/{id}", authenticated, documented, (*Server).revokeGrant},

		{http.MethodGet, "/api/v1/conversations", authenticated, documented, (*Server).listConversations},
		{http.MethodPost, "/api/v1/conversations", authenticated, documented, (*Server).createConversation},
		{http.MethodGet, "/api/v1/conversations/{id}", authenticated, documented, (*Server).getConversation},
		{http.MethodDelete, "/api/v1/conversations/{id}", authenticated, documented, (*Server).deleteConversation},
		{http.MethodPost, "/api/v1/conversations/{id}/messages", authenticated, documented, (*Server).postMessage},
		{http.MethodGet, "/api/v1/conversations/{id}/export", authenticated, documented, (*Server).exportConversation},
		{http.MethodPost, "/api/v1/conversations/{id}/uploads", authenticated, documented, (*Server).createUpload},
		{http.MethodGet, "/api/v1/conversations/{id}/uploads", authenticated, documented, (*Server).listUploads},

		{http.MethodGet, "/api/v1/runs/{id}/events", authenticated, documented, (*Server).runEvents},
		{http.MethodDelete, "/api/v1/runs/{id}", authenticated, documented, (*Server).cancelRun},

		{http.MethodGet, "/api/v1/approvals", authenticated, documented, (*Server).listApprovals},
		{http.MethodPost, "/api/v1/approvals/{id}", authenticated, documented, (*Server).decideApproval},

		{http.MethodGet, "/api/v1/agents", authenticated, documented, (*Server).listAgents},
		{http.MethodPost, "/api/v1/agents", admin, documented, (*Server).createAgent},
		{http.MethodGet, "/api/v1/agents/{name}", authenticated, documented, (*Server).getAgent},
		{http.MethodPut, "/api/v1/agents/{name}", admin, documented, (*Server).updateAgent},
		{http.MethodDelete, "/api/v1/agents/{name}", admin, documented, (*Server).deleteAgent},
		{http.MethodPut, "/api/v1/agents/{name}/servers/{server}", admin, documented, (*Server).assignServer},
		{http.MethodDelete, "/api/v1/agents/{name}/servers/{server}", admin, documented, (*Server).removeServer},

		{http.MethodGet, "/api/v1/config/entries", admin, documented, (*Server).listEntries},
		{http.MethodPost, "/api/v1/config/{kind}", admin, documented, (*Server).createEntry},
		{http.MethodGet, "/api/v1/config/{kind}/{name}", admin, documented, (*Server).getEntry},
		{http.MethodPut, "/api/v1/config/{kind}/{name}", admin, documented, (*Server).replaceEntry},
		{http.MethodDelete, "/api/v1/config/{kind}/{name}", admin, documented, (*Server).deleteEntry},
		{http.MethodPost, "/api/v1/config/{kind}/{name}/enable", admin, documented, (*Server).enableEntry},
		{http.MethodPost, "/api/v1/config/{kind}/{name}/disable", admin, documented, (*Server).disableEntry},
		{http.MethodPost, "/api/v1/config/{kind}/{name}/test", admin, documented, (*Server).testEntry},

		{http.MethodGet, "/api/v1/servers", authenticated, documented, (*Server).listServers},
		{http.MethodGet, "/api/v1/servers/{name}/stderr", admin, documented, (*Server).serverStderr},
		{http.MethodPost, "/api/v1/servers/{name}/restart", admin, documented, (*Server).restartServer},

		{http.MethodGet, "/api/v1/tools", authenticated, documented, (*Server).listTools},
		{http.MethodGet, "/api/v1/tools/changes", admin, documented, (*Server).listToolChanges},
		{http.MethodPost, "/api/v1/tools/changes/accept", admin, documented, (*Server).acceptToolChanges},
		{http.MethodPost, "/api/v1/tools/{name}/call", authenticated, documented, (*Server).callTool},

		{http.MethodGet, "/api/v1/prompts", authenticated, documented, (*Server).listPrompts},
		{http.MethodPost, "/api/v1/prompts/{name}", authenticated, documented, (*Server).getPrompt},
		{http.MethodGet, "/api/v1/resources", authenticated, documented, (*Server).listResources},
		{http.MethodPost, "/api/v1/resources/read", authenticated, documented, (*Server).readResource},
		{http.MethodPost, "/api/v1/complete", authenticated, documented, (*Server).complete},

		{http.MethodGet, "/api/v1/audit", authenticated, documented, (*Server).listAudit},

		{http.MethodGet, "/api/v1/connections", authenticated, documented, (*Server).listConnections},
		{http.MethodPut, "/api/v1/connections/{server}", authenticated, documented, (*Server).connect},
		{http.MethodDelete, "/api/v1/connections/{server}", authenticated, documented, (*Server).disconnect},
		{http.MethodPost, "/api/v1/connections/{server}/authorize", authenticated, documented, (*Server).authorizeConnection},
		{http.MethodPost, "/api/v1/connections/oauth/callback", authenticated, documented, (*Server).finishConnection},

		{http.MethodPost, "/v1/chat/completions", authenticated, documented, (*Server).chatCompletions},
		{http.MethodGet, "/v1/models", authenticated, documented, (*Server).listModels},

		// The MCP Streamable HTTP transport uses these three methods.
		{http.MethodGet, "/mcp", authenticated, documented, (*Server).mcp},
		{http.MethodPost, "/mcp", authenticated, documented, (*Server).mcp},
		{http.MethodDelete, "/mcp", authenticated, documented, (*Server).mcp},

		{http.MethodGet, "/", public, undocumented, (*Server).web},
	}
}

// buildMux registers every route with its middleware.
func (s *Server) buildMux() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes() {
		label := rt.method + " " + rt.pattern
		mux.Handle(label, s.opts.Tracing.HTTPHandler(label, s.wrap(rt, rt.handle(s))))
	}
	return mux
}
