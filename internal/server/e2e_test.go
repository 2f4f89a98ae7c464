package server

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/sse"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestEndToEndRealRuntime runs a conversation through the real agent
// runtime, a scripted model, a real tools.Registry and the SQLite store:
// the model calls a tool that needs approval, which is approved through
// the approvals route while the stream is open.
func TestEndToEndRealRuntime(t *testing.T) {
	db := openDB(t)
	reg := tools.NewRegistry(nil)
	var writes atomic.Int32
	write := newTool("write")
	write.Spec.Annotations = nil // unannotated: the default policy asks
	write.Run = func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		writes.Add(1)
		return tools.TextResult("written"), nil
	}
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{write})
	model := llmtest.NewFakeProvider(
		llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"Writing."}, ToolCalls: []llmtest.ToolCallScript{{ID: "c1", Name: "files__write", ArgChunks: []string{`{"text":"x"}`}}}}},
		llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"Done", "."}, Usage: llm.Usage{InputTokens: 5, OutputTokens: 2}}},
	)
	models := func(string) (agent.Model, error) { return agent.Model{Name: "default", Provider: model}, nil }
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(models, reg, g, &agent.Options{History: db, Approvals: db})
	srv := New(StoresOf(db), rt, reg, g, &Options{RunLog: db, Changes: db, AllowAnonymous: true})
	e := &env{db: db, reg: reg, srv: srv}
	e.ts = newTestServer(t, srv)

	conv := e.createConversation(t)
	resp := e.openStream(t, context.Background(), conv, "write x")
	defer resp.Body.Close()
	var text string
	got := readEvents(t, resp.Body, func(ev sse.Event) {
		switch ev.Type {
		case "text":
			text += decode[eventJSON](t, ev.Data).Text
		case "approval":
			id := decode[eventJSON](t, ev.Data).Approval.ID
			if code, b := e.do(t, http.MethodPost, "/api/v1/approvals/"+id, "", decideBody{Decision: decideApprove}); code != http.StatusOK {
				t.Errorf("approving: %d %s", code, b)
			}
		}
	})
	want := []string{"run", "text", "approval", "approval_resolved", "tool_start", "tool_end", "text", "text", "done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if text != "Writing.Done." || writes.Load() != 1 {
		t.Errorf("text %q, %d writes; want Writing.Done. and 1", text, writes.Load())
	}
	code, b := e.do(t, http.MethodGet, "/api/v1/conversations/"+conv, "", nil)
	var roles []string
	for _, m := range decode[conversationJSON](t, b).Messages {
		roles = append(roles, string(m.Role))
	}
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant"}, roles); code != 200 || diff != "" {
		t.Errorf("stored messages (status %d) mismatch (-want +got):\n%s", code, diff)
	}
}

// TestEndToEndChatCompletions runs /v1/chat/completions through the real
// agent runtime for a user who may call only files__echo*: the model sees
// only the permitted catalogue tool and the client's tool, the client's
// tool call comes back to the client, and the next request (carrying its
// result) continues through a Switchboard tool call to the answer.
func TestEndToEndChatCompletions(t *testing.T) {
	db := openDB(t)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{newTool("echo"), newTool("secret")})
	model := llmtest.NewFakeProvider(
		llmtest.FakeReply{Turn: llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: "w1", Name: "get_weather", ArgChunks: []string{`{"city":"Oslo"}`}}}}},
		llmtest.FakeReply{Turn: llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: "e1", Name: "files__echo", ArgChunks: []string{`{"text":"sunny"}`}}}}},
		llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"It is ", "sunny"}}},
	)
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(string) (agent.Model, error) { return agent.Model{Name: "default", Provider: model}, nil }, reg, g, nil)
	key, hash := NewAPIKey()
	if _, err := db.CreateUser(context.Background(), store.User{Name: "alice", KeyHash: hash, Permissions: []string{"files__echo*"}}); err != nil {
		t.Fatal(err)
	}
	srv := New(StoresOf(db), rt, reg, g, &Options{RunLog: db, Changes: db, Models: func() []string { return []string{"default"} }})
	e := &env{db: db, reg: reg, srv: srv, key: key, ts: newTestServer(t, srv)}
	c := openaiClient(e)

	params := openai.ChatCompletionNewParams{
		Model:    "default",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Oslo?")},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool()},
	}
	res := complete(t, c, false, params)
	msg := res.Choices[0].Message
	if res.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "get_weather" {
		t.Fatalf("first reply = %+v; want the client's get_weather call", res.Choices[0])
	}
	var offered []string
	for _, s := range model.Requests()[0].Tools {
		offered = append(offered, s.Name)
	}
	if diff := cmp.Diff([]string{"files__echo", "get_weather"}, offered); diff != "" {
		t.Errorf("tools offered to the model mismatch (-want +got):\n%s", diff)
	}
	params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
	res = complete(t, c, true, params)
	if got := res.Choices[0].Message.Content; got != "It is sunny" || len(res.Choices[0].Message.ToolCalls) != 0 {
		t.Errorf("final reply = %+v; want It is sunny without tool calls", res.Choices[0])
	}
}

// TestChatRefusedRequestIsClientError checks that a request the agent
// refuses (a client tool named like a catalogue tool) is a 400 with the
// agent's reason, streamed or not.
func TestChatRefusedRequestIsClientError(t *testing.T) {
	db := openDB(t)
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "files"}, []tools.Tool{newTool("echo")})
	g := gate.New(&gate.Options{Audit: db})
	rt := agent.New(func(string) (agent.Model, error) {
		return agent.Model{Name: "default", Provider: llmtest.NewFakeProvider()}, nil
	}, reg, g, nil)
	srv := New(StoresOf(db), rt, reg, g, &Options{RunLog: db, Changes: db, AllowAnonymous: true, Models: func() []string { return []string{"default"} }})
	e := &env{db: db, reg: reg, srv: srv, ts: newTestServer(t, srv)}
	for _, stream := range []bool{false, true} {
		body := map[string]any{
			"model": "default", "stream": stream,
			"messages": []map[string]any{{"role": "user", "content": "hi"}},
			"tools":    []map[string]any{{"type": "function", "function": map[string]any{"name": "files__echo"}}},
		}
		code, b := e.do(t, http.MethodPost, "/v1/chat/completions", "", body)
		got := decode[errorBody](t, b)
		if code != http.StatusBadRequest || got.Error.Code != "invalid_request" || !strings.Contains(got.Error.Message, "files__echo") {
			t.Errorf("stream=%v: %d %s; want 400 naming files__echo", stream, code, b)
		}
	}
}
