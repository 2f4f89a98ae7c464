// Package mcptest runs real MCP test servers for tests of Switchboard: a
// stdio server that is the test binary itself, re-executed ([StdioServer]),
// Streamable HTTP and SSE servers on httptest ([HTTPServer], [SSEServer]),
// and an OAuth-protected HTTP server with its own authorization server
// ([OAuthServer]). Each returns an mcphost.ServerConfig ready for a Pool. Each server has modes that make it
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
// Then, in a test:
//
//	sc := mcptest.StdioServer(t, "files", mcptest.ModeNormal)
//	pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, nil)
//	pool.Start(ctx)
//	defer pool.Close()
//
// The server's tools are echo {text}, add {a,b} (structured output), fail
// (a tool error), slow {ms}, progress {steps}, hang {id}, crash, garbage,
// big {bytes}, rich (every content kind), register {name} (adds a tool and
// sends list_changed), sample {text} (sampling), elicit (elicitation) and
// roots; plus the resource test://readme, the template test://items/{id}
// and the prompt greet {who}. The modes in env.go make it misbehave.
//
// Layer: test support. Only _test.go files import it.
package mcptest
