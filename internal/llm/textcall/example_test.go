package textcall_test

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
)

func ExampleParser_Parse() {
	p := textcall.NewParser([]string{"get_weather"})
	reply := "Let me check.\n<tool_code>{'tool_name': 'get_weather', 'arguments': {'city': 'Oslo',}}</tool_code>"
	for _, part := range p.Parse(reply) {
		if part.Call == nil {
			fmt.Printf("text: %q\n", part.Text)
			continue
		}
		fmt.Printf("call: %s %s (repaired: %v)\n", part.Call.Name, part.Call.Arguments, part.Call.Repaired)
	}
	// Output:
	// text: "Let me check.\n"
	// call: get_weather {"city":"Oslo"} (repaired: true)
}

func ExampleStreamParser() {
	s := textcall.NewParser([]string{"search"}).NewStream()
	show := func(parts []textcall.Part) {
		for _, part := range parts {
			if part.Call != nil {
				fmt.Printf("call %s %s\n", part.Call.Name, part.Call.Arguments)
			} else {
				fmt.Printf("text %q\n", part.Text)
			}
		}
	}
	for _, delta := range []string{"Searching ", "now. <tool", `_code>{"tool_name": "search", `, `"arguments": {"q": "go"}}</tool_code>`} {
		show(s.Feed(delta))
	}
	// A call after prose is released at the end: until then a lone
	// </think> could still make the prose, and the call, reasoning.
	show(s.Close())
	// Output:
	// text "Searching "
	// text "now. "
	// call search {"q":"go"}
}
