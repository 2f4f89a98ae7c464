// Package mcptest runs real MCP test servers for tests of Switchboard: a
// stdio server that is the test binary itself, re-executed, and Streamable
// HTTP and SSE servers on httptest. Each server has modes that make it
// misbehave in one specific way (exit at start, crash mid-call, hang, write
// garbage to stdout, ...), and it records what it saw in an events file the
// test can read, so tests assert on what the server observed.
//
// A test binary can only re-execute itself, so a package that uses
// [StdioServer] must let the child turn into the server before any test runs:
//
//	func TestMain(m *testing.M) {
//		mcptest.MaybeServe() // returns unless this process is a test server
//		os.Exit(m.Run())
//	}
//
// Layer: test support. Only _test.go files import it.
package mcptest
