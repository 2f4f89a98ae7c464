// Package security holds Switchboard's security test suite: tests that
// attack the controls through the real app wiring (HTTP API, MCP gateway,
// agent runs, store). It has no code of its own and nothing imports it.
package security
