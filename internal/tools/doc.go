// Package tools is the tool catalogue contract: the [Tool] interface every kind of tool
// implements (built-in, MCP, OpenAPI), the value types that cross it ([Info], [Result],
// [Content]) and the [Registry] that gathers tools from all sources under provider-safe,
// stable names and validates arguments before a call.
//
// Layer: contract. It imports only the standard library and the JSON Schema validator;
// adapters (tools/builtin, tools/openapi, mcphost) import it, never the other way round.
package tools
