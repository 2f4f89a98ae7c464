package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC message and returns the status and body.
func post(t *testing.T, endpoint, host, origin, caller, session, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if caller != "" {
		req.Header.Set(callerHeader, caller)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	return resp.StatusCode, string(b)
}

// TestHostAndOrigin checks the DNS rebinding protection of the handler on
// a loopback listener.
func TestHostAndOrigin(t *testing.T) {
	srv := newServer(t, catalogue(), nil, &mcpserve.Options{
		AllowedHosts:   []string{"mcp.example.com"},
		AllowedOrigins: []string{"http://localhost:3000/"},
	})
	ts := serveHTTP(t, srv)
	u, _ := url.Parse(ts.URL)
	own := u.Host // 127.0.0.1:port
	port := u.Port()
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{name: "loopback address", host: own, want: http.StatusOK},
		{name: "localhost name", host: "localhost:" + port, want: http.StatusOK},
		{name: "ipv6 loopback", host: "[::1]:" + port, want: http.StatusOK},
		{name: "same origin", host: own, origin: "http://" + own, want: http.StatusOK},
		{name: "allowed origin", host: own, origin: "http://localhost:3000", want: http.StatusOK},
		{name: "allowed host", host: "mcp.example.com", want: http.StatusOK},
		{name: "allowed host with its own origin", host: "mcp.example.com:" + port, origin: "http://mcp.example.com:" + port, want: http.StatusOK},
		{name: "rebound name", host: "evil.example.com", want: http.StatusForbidden},
		{name: "rebound name with its own origin", host: "evil.example.com:" + port, origin: "http://evil.example.com:" + port, want: http.StatusForbidden},
		{name: "foreign origin", host: own, origin: "http://evil.example.com", want: http.StatusForbidden},
		{name: "other port of localhost", host: own, origin: "http://localhost:4000", want: http.StatusForbidden},
		{name: "null origin", host: own, origin: "null", want: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, ts.URL, tt.host, tt.origin, "alice", "", initializeBody)
			if status != tt.want {
				t.Fatalf("status %d (%s), want %d", status, body, tt.want)
			}
			if status == http.StatusForbidden {
				var msg struct {
					JSONRPC string `json:"jsonrpc"`
					Error   struct{ Code int }
				}
				if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Error.Code != -32600 {
					t.Errorf("403 body %q is not a JSON-RPC error", body)
				}
			}
		})
	}
}

// TestSessionBelongsToCaller checks that another caller cannot use a
// session it did not create.
func TestSessionBelongsToCaller(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	ts := serveHTTP(t, srv)
	cs := connectHTTP(t, ts.URL, "alice", nil)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	raw, mac, _ := strings.Cut(cs.ID(), ".")
	flipped := []byte(mac)
	flipped[len(flipped)-1] ^= 1
	tests := []struct {
		caller, id string
		want       int
	}{
		{caller: "alice", id: cs.ID(), want: http.StatusOK},
		{caller: "mallory", id: cs.ID(), want: http.StatusForbidden},
		{caller: "", id: cs.ID(), want: http.StatusForbidden},
		// The session's own caller with an ID it was not issued: the
		// held session's issued ID must match exactly, or the MAC decides.
		{caller: "alice", id: raw + "." + string(flipped), want: http.StatusForbidden},
		{caller: "alice", id: cs.ID() + ".e", want: http.StatusForbidden},
		{caller: "alice", id: cs.ID() + "x", want: http.StatusForbidden},
		{caller: "alice", id: raw + ".", want: http.StatusForbidden},
	}
	for _, tt := range tests {
		status, body := post(t, ts.URL, "", "", tt.caller, tt.id, list)
		if status != tt.want {
			t.Errorf("caller %q, session %q: status %d (%s), want %d", tt.caller, tt.id, status, body, tt.want)
		}
	}
}

// TestCloseStopsEverything checks that Close cancels calls in flight, ends
// HTTP and stdio sessions and refuses new work; goleak in TestMain checks
// that nothing is left running.
func TestCloseStopsEverything(t *testing.T) {
	started := make(chan struct{}, 2)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("hang", readOnly, func(ctx context.Context, _ *tools.CallRequest) (*tools.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	srv := mcpserve.New(reg, gate.New(nil), nil)
	ts := serveHTTP(t, srv)
	httpSession := connectHTTP(t, ts.URL, "alice", nil)

	in, clientOut := io.Pipe()
	clientIn, out := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), in, out) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	stdioSession, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v", err)
	}
	defer stdioSession.Close()

	calls := make(chan error, 2)
	for _, cs := range []*mcp.ClientSession{httpSession, stdioSession} {
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang"})
			calls <- err
		}()
	}
	<-started
	<-started
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range 2 {
		select {
		case err := <-calls:
			if err == nil {
				t.Error("a call in flight returned no error after Close")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a call in flight did not end within 10s of Close")
		}
	}
	if err := <-served; !errors.Is(err, mcpserve.ErrClosed) {
		t.Errorf("ServeStdio returned %v, want ErrClosed", err)
	}
	if err := srv.ServeStdio(context.Background(), strings.NewReader(""), io.Discard); !errors.Is(err, mcpserve.ErrClosed) {
		t.Errorf("ServeStdio after Close returned %v, want ErrClosed", err)
	}
	status, _ := post(t, ts.URL, "", "", "alice", "", initializeBody)
	if diff := cmp.Diff(http.StatusServiceUnavailable, status); diff != "" {
		t.Errorf("status after Close mismatch (-want +got):\n%s", diff)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestServeStdioEnds checks how ServeStdio ends: nil when the client closes
// its end, ctx.Err() when ctx ends.
func TestServeStdioEnds(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	t.Run("client hangs up", func(t *testing.T) {
		in, clientOut := io.Pipe()
		clientIn, out := io.Pipe()
		served := make(chan error, 1)
		go func() { served <- srv.ServeStdio(context.Background(), in, out) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
			Connect(t.Context(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		cs.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio returned %v, want nil", err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		in, _ := io.Pipe()
		_, out := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.ServeStdio(ctx, in, out) }()
		cancel()
		if err := <-served; !errors.Is(err, context.Canceled) {
			t.Errorf("ServeStdio returned %v, want context.Canceled", err)
		}
	})
	t.Run("garbage input", func(t *testing.T) {
		in := io.NopCloser(strings.NewReader("this is not json\n{\"jsonrpc\":\n"))
		err := srv.ServeStdio(context.Background(), in, io.Discard)
		t.Logf("ServeStdio on garbage: %v", err) // must return, with or without an error
	})
}

// TestNewWithoutGatePanics: the gate is required; a missing one is a wiring
// bug, not a gateway without permissions, limits or audit.
func TestNewWithoutGatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("mcpserve.New with a nil gate did not panic")
		}
	}()
	mcpserve.New(tools.NewRegistry(nil), nil, nil)
}
