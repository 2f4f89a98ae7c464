package openapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// Example loads the example e-mail action server, lists its tools and asks
// for the latest e-mail. An app hands the tools to its registry from
// OnChange, which also runs after every later refresh.
func Example() {
	ts := httptest.NewServer(emailserver.New())
	defer ts.Close()

	ctx := context.Background()
	s := openapi.New("email", &openapi.Options{
		URL: ts.URL,
		OnChange: func(s *openapi.Server) {
			fmt.Println("tools changed:", len(s.Tools())) // registry.Set(...) in the app
		},
	})
	if err := s.Load(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range s.Tools() {
		fmt.Printf("%s read-only=%v\n", t.Info().Name, t.Info().Annotations.ReadOnly())
	}
	read := s.Tools()[0]
	res, err := read.Call(ctx, &tools.CallRequest{Arguments: []byte(`{"limit": 1}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text()[:60])
	fmt.Println(s.Status().State)
	// Output:
	// tools changed: 2
	// read-emails read-only=true
	// send-email read-only=false
	// {"count":1,"emails":[{"id":"msg-1","from":"Alice Martin <ali
	// ready
}
