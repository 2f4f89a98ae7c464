package mcptest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// HTTPServer starts an in-process Streamable HTTP test server (closed when
// the test ends) and returns its configuration with Transport "http".
// wrap, when non-nil, wraps the handler (to require headers or a token).
func HTTPServer(t testing.TB, name string, wrap func(http.Handler) http.Handler, modes ...Mode) (mcphost.ServerConfig, *httptest.Server) {
	t.Helper()
	ts := &testServer{modes: modes, events: &eventLog{path: filepath.Join(t.TempDir(), "events")}}
	srv := ts.build()
	hopts := &mcp.StreamableHTTPOptions{Stateless: ts.has(ModeStateless)}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, hopts)
	return serveHTTP(t, name, ts, srv, h, wrap, mcphost.TransportHTTP)
}

// SSEServer starts an in-process legacy HTTP+SSE test server and returns its
// configuration with Transport "sse".
func SSEServer(t testing.TB, name string, wrap func(http.Handler) http.Handler, modes ...Mode) (mcphost.ServerConfig, *httptest.Server) {
	t.Helper()
	ts := &testServer{modes: modes, events: &eventLog{path: filepath.Join(t.TempDir(), "events")}}
	srv := ts.build()
	var h http.Handler = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return serveHTTP(t, name, ts, srv, h, wrap, mcphost.TransportSSE)
}

func serveHTTP(t testing.TB, name string, ts *testServer, srv *mcp.Server, h http.Handler, wrap func(http.Handler) http.Handler, tr mcphost.Transport) (mcphost.ServerConfig, *httptest.Server) {
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		// Sessions whose client vanished (or whose DELETE was refused)
		// would otherwise outlive the test.
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	return mcphost.ServerConfig{
		Name:      name,
		Transport: tr,
		URL:       hs.URL,
		// The events file travels in Env, which remote servers ignore,
		// so EventsFile works for every kind of test server.
		Env: map[string]string{EnvEvents: ts.events.path},
	}, hs
}
