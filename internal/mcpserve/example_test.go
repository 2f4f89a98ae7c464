package mcpserve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	srv := mcpserve.New(reg, &mcpserve.Options{
		// Only admins see destructive tools.
		Permit: func(_ context.Context, c mcpserve.Caller, e tools.Entry) bool {
			return c.ID == "admin" || e.Info.Annotations.ReadOnly()
		},
	})
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
