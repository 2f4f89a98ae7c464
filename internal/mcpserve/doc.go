// Package mcpserve exposes Switchboard's whole tool catalogue (a
// [tools.Registry]) as one MCP server: over Streamable HTTP through
// [Server.Handler], which the HTTP server mounts at /mcp, and over stdio
// through [Server.ServeStdio], for `switchboard mcp` launched by a desktop
// client or an IDE.
//
// Every call goes through the gate every surface shares ([Options].Gate,
// package gate): the caller sees only the tools its permissions allow, in
// tools/list and in tools/call alike; tools/call counts against the
// caller's tool-call limit; calls follow the approval policy: a tool that needs approval is confirmed through MCP
// elicitation when the client supports it (an elicitation/create request
// before protocol 2026-07-28, an input request of the call from then on)
// and refused with an explanation otherwise. Every call that reaches a
// catalogue tool is audited through the gate. Progress and cancellation pass through in both
// directions, and catalogue changes reach connected clients as
// notifications/tools/list_changed.
//
// Prompts and resources of the upstream MCP servers are served too when
// [Options].Features is set (features.go), and completion/complete is
// relayed to the server owning the prompt or resource template, all
// decided by [gate.Offerings] (which the REST API shares), under the
// caller's permission globs: a prompt is named server__prompt and allowed by the globs that
// would allow a tool of that name; resources need globs that cover the
// whole server (server__*). A user without permission sees none and is
// refused on prompts/get and resources/read. Resource URIs (and templates)
// are served as switchboard://<server>/<upstream URI>, which maps back only
// to that server. Every get and read is audited through the gate as
// server__prompt or server__resource. Neither is pinned (pinning covers
// tool definitions); of the approval policy only deny rules apply (they
// run no tool, so nothing is asked). An upstream server's prompts/list_changed or
// resources/list_changed reaches connected clients as both.
//
// HTTP serves protocol versions up to 2025-11-25 on sessions (the ones
// that need server-to-client requests and list_changed on a session), which
// expire when idle, are capped per caller, and continue on any replica
// sharing the session key; 2026-07-28 and later without sessions, so any
// replica serves any request. tools/call on a session takes a direct path
// beside the SDK when it needs nothing of the session. stdio accepts every
// version the go-sdk speaks. Built on the official
// go-sdk; none of its types appear in this package's API.
//
// Layer: behaviour. It imports internal/tools, internal/gate,
// internal/store and the go-sdk; the app package builds it and fills its
// Options (identity, the gate). Nothing else imports it.
package mcpserve
