package tools_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// echo returns a tool, made with [tools.Func], that returns its "text"
// argument.
func echo(name string) tools.Tool {
	return &tools.Func{
		Spec: tools.Info{
			Name:        name,
			Description: "Echo the text back.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		},
		Run: func(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Arguments, &args); err != nil {
				return tools.ErrorResult(err.Error()), nil
			}
			return tools.TextResult(args.Text), nil
		},
	}
}

func ExampleRegistry() {
	r := tools.NewRegistry(nil)
	r.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{echo("echo")})
	r.Set(tools.Source{Kind: tools.KindMCP, Server: "chat"}, []tools.Tool{echo("say.hello"), echo("say")})

	for _, e := range r.List() {
		fmt.Printf("%s <- %s %q %q\n", e.Name, e.Origin.Kind, e.Origin.Server, e.Origin.Name)
	}

	ctx := context.Background()
	res, _ := r.Call(ctx, "chat__say", &tools.CallRequest{Arguments: json.RawMessage(`{"text":"hi"}`)})
	fmt.Println(res.Text())
	res, _ = r.Call(ctx, "echo", &tools.CallRequest{Arguments: json.RawMessage(`{"text":3}`)})
	fmt.Println(res.IsError, res.Text())
	// Output:
	// echo <- builtin "" "echo"
	// chat__say <- mcp "chat" "say"
	// chat__say_hello_c62b22bc <- mcp "chat" "say.hello"
	// hi
	// true invalid arguments for echo: /text: expected string, got number
}
