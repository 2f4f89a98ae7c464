package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// mcpEnv runs the mcptest stdio server "test" behind a real pool, with the
// pool's sampling hook answered by the runtime.
func mcpEnv(t *testing.T, fake *llmtest.FakeProvider, configure ...func(*envOptions)) (*env, mcphost.ServerConfig) {
	t.Helper()
	// The server's tools run without asking; sampling still asks.
	e := newEnv(t, fake, func(o *envOptions) {
		o.Policy.Rules = []agent.Rule{{Server: "test", Tool: "test__*", Action: agent.ActionAllow}}
		for _, c := range configure {
			c(o)
		}
	})
	sc := mcptest.StdioServer(t, "test")
	pool := mcphost.NewPool([]mcphost.ServerConfig{sc}, &mcphost.Options{
		OnToolsChanged: func(server string, ts []tools.Tool) {
			e.reg.Set(tools.Source{Kind: tools.KindMCP, Server: server}, ts)
		},
		Sampling: func(ctx context.Context, server string, req *mcphost.SamplingRequest) (*mcphost.SamplingResult, error) {
			sr := &agent.SampleRequest{Server: server, System: req.SystemPrompt, MaxTokens: int(req.MaxTokens)}
			for _, m := range req.Messages {
				sr.Messages = append(sr.Messages, llm.Message{Role: llm.Role(m.Role), Content: []llm.Part{llm.TextPart(m.Content.Text)}})
			}
			res, err := e.rt.Sample(ctx, sr)
			if err != nil {
				return nil, err
			}
			return &mcphost.SamplingResult{Content: tools.Content{Type: tools.ContentText, Text: res.Text}, Model: res.Model}, nil
		},
		Elicitation: func(ctx context.Context, _ string, req *tools.ElicitRequest) (*tools.ElicitResult, error) {
			return e.rt.Elicit(ctx, req)
		},
		PingInterval: -1,
	})
	pool.Start(t.Context())
	t.Cleanup(func() { pool.Close() })
	if _, ok := e.reg.Lookup("test__hang"); !ok {
		t.Fatalf("the mcp test server's tools are missing: %v", e.reg.List())
	}
	return e, sc
}

// TestMCPCancelReachesServer cancels a run while the server's hang tool
// runs: the server records that it saw the cancellation.
func TestMCPCancelReachesServer(t *testing.T) {
	e, sc := mcpEnv(t, llmtest.NewFakeProvider(calls("c1", "test__hang", `{"id":"h1"}`)))
	events := mcptest.EventsFile(sc)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var err error
	for ev, rerr := range e.rt.Run(ctx, &agent.Request{ConversationID: "c1", Message: "hang"}) {
		if rerr != nil {
			err = rerr
			break
		}
		if ev.Kind == agent.EventToolStart {
			mcptest.WaitEvent(t, events, "hang h1", 10*time.Second)
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stream error = %v, want context.Canceled", err)
	}
	mcptest.WaitEvent(t, events, "cancelled h1", 10*time.Second)
	if recs := e.audit.all(); len(recs) != 1 || recs[0].Res.Outcome != store.OutcomeCancelled || recs[0].Rec.Server != "test" {
		t.Errorf("audit = %+v", recs)
	}
}

// TestMCPProgressAndSampling runs a tool that reports progress and one
// that asks the conversation's model (sampling), approved by the user.
func TestMCPProgressAndSampling(t *testing.T) {
	fake := llmtest.NewFakeProvider(
		calls("c1", "test__progress", `{"steps":3}`),
		calls("c2", "test__sample", `{"text":"ping?"}`),
		say("pong"), // the sampling request
		say("The server's model said pong."),
	)
	e, _ := mcpEnv(t, fake)
	evs := e.runDeciding(t, &agent.Request{Message: "go"}, func(a *store.Approval) *agent.Decision {
		if a.Tool != "sampling:test" || a.Server != "test" || !strings.Contains(string(a.Arguments), "ping?") {
			t.Errorf("approval = %+v", a)
		}
		return &agent.Decision{Kind: agent.ApproveOnce}
	})
	if p := find(evs, agent.EventProgress); len(p) == 0 || p[len(p)-1].Progress.Total != 3 {
		t.Errorf("progress events = %+v", p)
	}
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 2 || ends[1].Result.Text != "model main-id said: pong" {
		t.Errorf("tool ends = %+v", ends)
	}
	if reqs := fake.Requests(); len(reqs) != 4 || reqs[2].System != "be brief" || len(reqs[2].Tools) != 0 {
		t.Errorf("sampling request = %+v", reqs[2])
	}
}

// TestMCPElicitation puts the server's question to the user through the
// approval path; the user's answer goes back to the server.
func TestMCPElicitation(t *testing.T) {
	fake := llmtest.NewFakeProvider(calls("c1", "test__elicit", `{}`), say("Hello Ada."))
	e, _ := mcpEnv(t, fake)
	evs := e.runDeciding(t, &agent.Request{Message: "ask my name"}, func(a *store.Approval) *agent.Decision {
		if a.Tool != "elicitation" || !strings.Contains(string(a.Arguments), "What is your name?") {
			t.Errorf("approval = %+v", a)
		}
		return &agent.Decision{Kind: agent.ApproveOnce, Content: map[string]any{"name": "Ada"}}
	})
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 1 || ends[0].Result.Text != "action=accept name=Ada" {
		t.Errorf("tool ends = %+v", ends)
	}
}
