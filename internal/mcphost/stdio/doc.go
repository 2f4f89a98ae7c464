// Package stdio is Switchboard's own transport to a stdio MCP server: one
// child process, newline-delimited JSON-RPC on its stdin and stdout, read by
// one goroutine through a pooled buffer. A [Conn] is the go-sdk session's
// [mcp.Connection] and also carries tools/call on a direct path of its own
// ([Conn.CallTool]), decoding results straight into the catalogue's types
// and streaming long ones into the call's [tools.OutputStore].
//
// It knows nothing of configuration, supervision or the pool: package
// mcphost builds the command, starts a Conn and holds it behind a small
// interface. docs/ARCHITECTURE.md says why the transport is Switchboard's own.
//
// Layer: below mcphost. It imports internal/tools, internal/sandbox and the
// official MCP Go SDK only.
package stdio

// logKeyErr is the attribute key of errors in logs, as in every package.
const logKeyErr = "err"
