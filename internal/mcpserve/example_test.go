package mcpserve_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Example serves a catalogue over HTTP behind an authenticating layer that
// names the caller, and lists it with an MCP client. (tool, readOnly and
// destructive are this package's test helpers that make fake tools.)
func Example() {
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{
		tool("read", readOnly, nil),
		tool("delete", destructive, nil),
	})
	// Only admins see destructive tools: a hold of the gate, which every
	// surface shares.
	adminsOnly := func(_ context.Context, c *gate.Caller, e tools.Entry) error {
		if c.ID == "admin" || e.Info.Annotations.ReadOnly() {
			return nil
		}
		return errors.New("only admins may use destructive tools")
	}
	srv := mcpserve.New(reg, gate.New(&gate.Options{Holds: []gate.Hold{adminsOnly}}), nil)
	defer srv.Close()

	mcpHandler := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The real server checks an API key here; this caller is a guest.
		caller := mcpserve.Caller{ID: "guest"}
		mcpHandler.ServeHTTP(w, r.WithContext(mcpserve.WithCaller(r.Context(), caller)))
	}))
	defer hs.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range res.Tools {
		fmt.Println(t.Name)
	}
	// Output:
	// files__read
}
