package llm_test

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func ExampleCollect() {
	// Any llm.Provider; a scripted fake here.
	var p llm.Provider = llmtest.NewFakeProvider(llmtest.FakeReply{Turn: llmtest.Turn{
		Text:      []string{"Let me ", "check."},
		ToolCalls: []llmtest.ToolCallScript{{ID: "call_1", Name: "get_weather", ArgChunks: []string{`{"city":"Paris"}`}}},
		Usage:     llm.Usage{InputTokens: 20, OutputTokens: 9},
	}})
	req := &llm.Request{Model: "any", Messages: []llm.Message{llm.UserText("Weather in Paris?")}}
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(resp.Text())
	for _, c := range resp.Message.ToolCalls {
		fmt.Println(c.Name, string(c.Arguments))
	}
	fmt.Println(resp.StopReason, resp.Usage.Total())
	// Output:
	// Let me check.
	// get_weather {"city":"Paris"}
	// tool_use 29
}
