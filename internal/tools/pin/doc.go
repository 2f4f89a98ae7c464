// Package pin is tool pinning: trust on first use for tool definitions.
//
// The first time a tool of an MCP or OpenAPI server is seen, the hash of
// its definition (title, description, input and output schema,
// annotations) is stored with the definition itself. When the server later
// offers another definition under the same name (a "rug pull": a
// description that now tells the model to read ~/.ssh), [Pinner] holds the
// tool: the [tools.Registry] leaves it out of the catalogue and refuses to
// call it, so every consumer (agent runs, /mcp, the REST API, manifests)
// sees it vanish without checking anything itself. An admin reviews the
// change as a diff ([Changes]) and accepts it ([Accept]); a server
// configured with pinning auto has its changes accepted on sight. First
// sight, holding and accepting are each written to the audit trail.
//
// Built-in tools are not pinned: they come with the binary.
//
// pin imports tools and store; app wires it, and the CLI and the HTTP API
// use [Changes] and [Accept].
package pin
