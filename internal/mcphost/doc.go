// Package mcphost is the MCP client side of Switchboard: a [Pool] keeps one
// supervised connection per configured MCP server (stdio child process,
// Streamable HTTP or legacy HTTP+SSE), reconnects crashed servers with
// backoff, follows list_changed notifications and exposes each server's tools
// as [tools.Tool] values, plus its resources and prompts.
//
// All servers connect concurrently and independently: one slow, broken or
// hanging server never blocks or hides the others. Each server's state, the
// reason for its last failure and the tail of its stderr are visible through
// [Pool.Status]. [Diagnose] runs the checks behind `switchboard doctor`.
//
// Stdio servers run on a transport of Switchboard's own (package stdio): lines on
// stdout that are not JSON-RPC are skipped and reported rather than fatal,
// a long result streams into the call's [tools.OutputStore] instead of
// memory, up to [Options].MaxMessageBytes, and tools/call takes a direct
// path beside the go-sdk session. docs/ARCHITECTURE.md says why.
// A server is offered MCP roots only when [ServerConfig].Roots are set.
//
// A stdio server's process is built in one place, through package sandbox:
// the minimal environment plus InheritEnv and Env, a process group of its
// own, the parent-death signal, and [ServerConfig.Sandbox] when set.
//
// Layer: adapter. It imports internal/tools, internal/sandbox and the
// official MCP Go SDK only; SDK types never appear in its API. Only internal/app (and tests) import it;
// the app maps its configuration onto [ServerConfig] and [Options].
package mcphost
