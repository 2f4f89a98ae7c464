// Package server is Switchboard's HTTP service: the REST + SSE API that the
// web UI and programs use, the OpenAI-compatible API (/v1/chat/completions,
// /v1/models), the MCP gateway mount (/mcp), health and readiness probes,
// Prometheus metrics and the OpenAPI document of the API itself.
//
// # Routes
//
// Every route is listed once, in routes.go. The mux is built from that
// table, and /api/openapi.json (hand-written, embedded) is tested to name
// exactly the routes of the table.
//
// # Who may call
//
// Every /api/v1, /v1 and /mcp route needs "Authorization: Bearer sb_..."
// (see [NewAPIKey]); the key's SHA-256 is looked up in a [users.Directory], the
// server's cached view of the users, and what the caller may do is decided
// by the user's ID, role and globs, never its name. Routes that change what
// every user runs (agents and their servers) or read what only the
// operator should (server stderr) need the admin role. /metrics and /readyz
// need a key too unless [Options].PublicProbes; /healthz is public.
//
// When [Options].AllowAnonymous is set (the app sets it for a loopback
// listener), a request without a Switchboard key acts as the user "local"
// with every permission, but only while no user exists: the directory
// reads the store's users version on every anonymous request, so the
// first user created by any process ends anonymous access at once. A
// bearer that is not an "sb_" key counts as none then (OpenAI clients
// always send one); an unknown "sb_" key is refused. While anonymous
// access is possible the Host header must be a loopback name, so a web
// page elsewhere cannot reach the API by DNS rebinding. Browser requests
// that change state (any method but GET, HEAD, OPTIONS) from another
// origin are refused; there is no CORS.
//
// # Runs
//
// POST /api/v1/conversations/{id}/messages runs the agent and streams the
// run as SSE events (text, tool_start, tool_end, approval, ...; see
// events.go). The run belongs to the request: when the client leaves, the
// run is cancelled (the agent records cancelled tool calls and keeps the
// messages produced so far). A run is not re-attachable. While a stream is
// open, its approvals are answered through POST /api/v1/approvals/{id}.
//
// # Web UI seam
//
// internal/web supplies the pages as an http.Handler ([Options].Web), which
// the server mounts at "/" for GET requests. Pages are shells: the browser
// script calls the JSON and SSE API above with the user's key (or
// anonymously on loopback). The UI therefore needs nothing from this
// package but the API and its OpenAPI document.
//
// # Users and limits
//
// A user's Permissions (tool-name globs) filter the tools API, every agent
// run (as [agent.Request].Permissions) and, through the app, /mcp: the gateway
// handler finds the user with [UserFrom] on the request's context. A user
// stored without permissions may call no tool. The anonymous local user
// may call every tool and owns the single-user conversations (store User
// ""), the ones the terminal chat creates too. Requests are rate limited
// per user ([Limits]), tool calls by the gate; a refused request gets 429
// with Retry-After in seconds. Each user may hold [Options].MaxStreams
// open SSE streams, and every request body must arrive within
// [Options].BodyReadTimeout. Audit records name the user.
//
// # Observability
//
// The server counts every request in an [observe.Metrics], served at
// /metrics (with a key once users exist, or public with
// [Options].PublicProbes, for scrapers); the app counts tool
// calls, model requests and server states in the same one from its hooks.
// An [observe.Tracing] makes a span per HTTP request when the app created
// one for OTEL_EXPORTER_OTLP_ENDPOINT. Each request's logs carry its request id
// (also sent as X-Request-Id) and user.
//
// # Shutdown
//
// [Server.Shutdown] stops accepting connections, ends every open SSE
// stream with a final "shutdown" event (cancelling its run), and waits for
// in-flight handlers so that their audit records complete, under the
// caller's deadline.
//
// Layer: behaviour. It imports agent, tools, store (the contract only),
// sse, llm (types) and the standard library, plus prometheus, OpenTelemetry
// and x/time/rate.
// Only internal/app imports it; adapters reach it through [Options].
package server
