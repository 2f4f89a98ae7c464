package server

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// chatRunner is a fake agent for the OpenAI-compatible API: it calls the
// client's get_weather tool when offered and not yet answered, answers
// from a tool result when there is one, and otherwise runs one of
// Switchboard's own tools (which the client must not see) and says hello.
func chatRunner(seen *[]*agent.Request) *fakeRunner {
	return &fakeRunner{run: func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		*seen = append(*seen, req)
		done := agent.Event{Kind: agent.EventDone, Done: &agent.Done{RunID: req.RunID, StopReason: agent.StopEndTurn, Usage: llm.Usage{InputTokens: 7, OutputTokens: 3}}}
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == llm.RoleTool:
			return events(agent.Event{Kind: agent.EventText, Text: "It is " + last.Text()}, done)
		case len(req.ClientTools) > 0:
			call := &agent.CallInfo{ID: "call_1", Name: req.ClientTools[0].Name, Server: agent.ClientServer, Arguments: json.RawMessage(`{"city":"Oslo"}`)}
			return events(agent.Event{Kind: agent.EventToolStart, Call: call}, done)
		}
		own := &agent.CallInfo{ID: "own", Name: "files__echo", Server: "files"}
		return events(
			agent.Event{Kind: agent.EventToolStart, Call: own},
			agent.Event{Kind: agent.EventToolEnd, Call: own, Result: &agent.CallResult{Outcome: store.OutcomeOK}},
			agent.Event{Kind: agent.EventText, Text: "Hel"},
			agent.Event{Kind: agent.EventText, Text: "lo"},
			done)
	}}
}

func openaiClient(e *env) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(e.ts.URL+"/v1/"), option.WithAPIKey(e.key),
		option.WithHTTPClient(e.ts.Client()), option.WithMaxRetries(0),
	)
}

func weatherTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Weather in a city"),
		Parameters:  shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	})
}

// complete sends params, streamed or not, and returns the completion.
func complete(t *testing.T, c openai.Client, stream bool, params openai.ChatCompletionNewParams) openai.ChatCompletion {
	t.Helper()
	ctx := context.Background()
	if !stream {
		res, err := c.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatalf("chat completion: %v", err)
		}
		return *res
	}
	s := c.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("chat completion stream: %v", err)
	}
	return acc.ChatCompletion
}

func TestChatCompletionsOpenAIClient(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "stream"}[stream]
		t.Run(name, func(t *testing.T) {
			var seen []*agent.Request
			e := newEnv(t, nil)
			*e.runner = *chatRunner(&seen)
			c := openaiClient(e)

			res := complete(t, c, stream, openai.ChatCompletionNewParams{
				Model:    "default",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("hi")},
			})
			got := []string{res.Choices[0].Message.Content, res.Choices[0].FinishReason}
			if diff := cmp.Diff([]string{"Hello", "stop"}, got); diff != "" {
				t.Errorf("answer mismatch (-want +got):\n%s", diff)
			}
			if len(res.Choices[0].Message.ToolCalls) != 0 {
				t.Errorf("Switchboard's own tool calls leaked to the client: %+v", res.Choices[0].Message.ToolCalls)
			}
			if !stream && res.Usage.TotalTokens != 10 {
				t.Errorf("usage = %+v, want 10 tokens", res.Usage)
			}
			if r := seen[0]; r.Model != "default" || r.Agent != "" || r.Message != "" || len(r.Messages) != 2 || r.User != "alice" || r.Approver != agent.AutoDeny {
				t.Errorf("run request = %+v", r)
			}

			// The client's own tool: the call comes back as tool_calls, the
			// result goes in the next request.
			params := openai.ChatCompletionNewParams{
				Model:    "default",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Oslo?")},
				Tools:    []openai.ChatCompletionToolUnionParam{weatherTool()},
			}
			res = complete(t, c, stream, params)
			msg := res.Choices[0].Message
			if res.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "get_weather" || msg.ToolCalls[0].ID != "call_1" {
				t.Fatalf("first reply = %+v; want one get_weather call", res.Choices[0])
			}
			if msg.ToolCalls[0].Function.Arguments != `{"city":"Oslo"}` {
				t.Errorf("arguments = %s", msg.ToolCalls[0].Function.Arguments)
			}
			params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
			res = complete(t, c, stream, params)
			if got := res.Choices[0].Message.Content; got != "It is sunny" {
				t.Errorf("final answer = %q, want It is sunny", got)
			}
			last := seen[len(seen)-1]
			if n := len(last.Messages); n != 3 || last.Messages[2].ToolName != "get_weather" || last.Messages[1].ToolCalls[0].ID != "call_1" {
				t.Errorf("history of the round trip = %+v", last.Messages)
			}
		})
	}
}

func TestModelsOpenAIClient(t *testing.T) {
	e := newEnv(t, nil)
	if code, b := e.do(t, http.MethodPost, "/api/v1/agents", e.key, map[string]any{"name": "bob"}); code != 201 {
		t.Fatalf("creating agent: %d %s", code, b)
	}
	c := openaiClient(e)
	page, err := c.Models.List(context.Background())
	if err != nil {
		t.Fatalf("listing models: %v", err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID+"/"+m.OwnedBy)
	}
	if diff := cmp.Diff([]string{"bob/switchboard-agent", "default/switchboard"}, ids); diff != "" {
		t.Errorf("models mismatch (-want +got):\n%s", diff)
	}
	// An agent name as model runs that agent.
	var seen []*agent.Request
	*e.runner = *chatRunner(&seen)
	if _, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "bob", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}); err != nil {
		t.Fatalf("chat with agent: %v", err)
	}
	if seen[0].Agent != "bob" || seen[0].Model != "" {
		t.Errorf("run request agent %q model %q; want agent bob", seen[0].Agent, seen[0].Model)
	}
}
