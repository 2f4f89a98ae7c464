package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
)

func ExampleNew() {
	ts, err := builtin.New(&builtin.Options{Roots: []string{"."}, Disabled: []string{"terminal"}})
	if err != nil {
		panic(err)
	}
	for _, t := range ts {
		if t.Info().Name != "calculator" {
			continue
		}
		res, err := t.Call(context.Background(), &tools.CallRequest{Arguments: json.RawMessage(`{"expression":"2^10 + 0.1 + 0.2"}`)})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Text())
	}
	// Output: 1024.3
}
