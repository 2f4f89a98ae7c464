// Package security holds Switchboard's security test suite: tests that
// attack a real `switchboard serve` (the CLI in-process, real SQLite
// files, real MCP and HTTP clients) at each trust boundary, one file per
// control. It has no code of its own and nothing may import it; `make
// test` runs it with every other package. docs/SECURITY.md names each
// test under the control it checks.
package security
