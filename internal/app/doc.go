// Package app is the composition root of Switchboard: it maps a
// [config.Config] onto the Options of every part (the tool registry, the
// built-in tools, the MCP host pool, the OpenAPI action servers), starts
// them, and stops them in order.
//
// It is the one package that depends on the world: only internal/cli (and
// tests) import it, and it is the only package that imports adapters.
package app
