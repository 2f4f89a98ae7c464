package server

import "net/http"

// route is one entry of the route table: the one list from which the mux
// is built and against which the OpenAPI document is checked.
type route struct {
	method  string
	pattern string
	// auth says the route needs a user (and counts against its rate limit).
	auth bool
	// doc says the route is in /api/openapi.json (the web pages are not).
	doc    bool
	handle func(s *Server) handlerFunc
}

// routes lists every route the server serves.
func routes() []route {
	return []route{
		{http.MethodGet, "/healthz", false, true, (*Server).healthz},
		{http.MethodGet, "/readyz", false, true, (*Server).readyz},
		{http.MethodGet, "/metrics", false, true, (*Server).metricsRoute},
		{http.MethodGet, "/api/openapi.json", false, true, (*Server).openapi},

		{http.MethodGet, "/api/v1/conversations", true, true, (*Server).listConversations},
		{http.MethodPost, "/api/v1/conversations", true, true, (*Server).createConversation},
		{http.MethodGet, "/api/v1/conversations/{id}", true, true, (*Server).getConversation},
		{http.MethodDelete, "/api/v1/conversations/{id}", true, true, (*Server).deleteConversation},
		{http.MethodPost, "/api/v1/conversations/{id}/messages", true, true, (*Server).postMessage},

		{http.MethodGet, "/api/v1/approvals", true, true, (*Server).listApprovals},
		{http.MethodPost, "/api/v1/approvals/{id}", true, true, (*Server).decideApproval},

		{http.MethodGet, "/api/v1/agents", true, true, (*Server).listAgents},
		{http.MethodPost, "/api/v1/agents", true, true, (*Server).createAgent},
		{http.MethodGet, "/api/v1/agents/{name}", true, true, (*Server).getAgent},
		{http.MethodPut, "/api/v1/agents/{name}", true, true, (*Server).updateAgent},
		{http.MethodDelete, "/api/v1/agents/{name}", true, true, (*Server).deleteAgent},
		{http.MethodPut, "/api/v1/agents/{name}/servers/{server}", true, true, (*Server).assignServer},
		{http.MethodDelete, "/api/v1/agents/{name}/servers/{server}", true, true, (*Server).removeServer},

		{http.MethodGet, "/api/v1/servers", true, true, (*Server).listServers},
		{http.MethodGet, "/api/v1/servers/{name}/stderr", true, true, (*Server).serverStderr},
		{http.MethodPost, "/api/v1/servers/{name}/restart", true, true, (*Server).restartServer},

		{http.MethodGet, "/api/v1/tools", true, true, (*Server).listTools},
		{http.MethodPost, "/api/v1/tools/{name}/call", true, true, (*Server).callTool},

		{http.MethodGet, "/api/v1/audit", true, true, (*Server).listAudit},

		{http.MethodPost, "/v1/chat/completions", true, true, (*Server).chatCompletions},
		{http.MethodGet, "/v1/models", true, true, (*Server).listModels},

		// The MCP Streamable HTTP transport uses these three methods.
		{http.MethodGet, "/mcp", true, true, (*Server).mcp},
		{http.MethodPost, "/mcp", true, true, (*Server).mcp},
		{http.MethodDelete, "/mcp", true, true, (*Server).mcp},

		{http.MethodGet, "/", false, false, (*Server).web},
	}
}

// buildMux registers every route with its middleware.
func (s *Server) buildMux() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes() {
		label := rt.method + " " + rt.pattern
		mux.Handle(label, s.opts.Tracing.handler(label, s.wrap(rt, rt.handle(s))))
	}
	return mux
}
