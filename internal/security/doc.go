// Package security is Switchboard's security test suite: each test states
// one property a user relies on (a changed tool is held, credentials stay
// with their origin, secrets are never shown, ...) and tries to break it
// through the real surfaces: the command line, the HTTP API, /mcp, agent
// runs, with real MCP servers. It has no code of its own besides tests.
//
// Layer: test support; only tests may import it.
package security
