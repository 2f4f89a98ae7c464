package app

import (
	"context"
	"iter"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Every tool is wrapped once, when its source hands it to the registry, so
// that calls from every path (the agent, the tools API, the MCP gateway,
// `switchboard call`) are traced alike. They are counted in the metrics by
// the gate (see App.Gate), once per call, refused calls included.

// observedTool traces the calls of one tool.
type observedTool struct {
	tools.Tool
	kind   tools.Kind
	server string
	app    *App
}

func (t observedTool) Call(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	name := t.Info().Name
	span := "tool.call"
	if t.kind == tools.KindMCP {
		span = "mcp.tools/call" // the MCP request itself
	}
	ctx, end := t.app.tracer().Start(ctx, span, "tool", name, "server", t.server)
	res, err := t.Tool.Call(ctx, req)
	end(err)
	return res, err
}

// observe wraps the tools of one source (server "builtin" for built-ins).
func (a *App) observe(kind tools.Kind, server string, ts []tools.Tool) []tools.Tool {
	if ts == nil {
		return nil
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = observedTool{Tool: t, kind: kind, server: server, app: a}
	}
	return out
}

// tracer returns the tracing of the running service, or nil (no spans).
func (a *App) tracer() *observe.Tracing {
	if s := a.svc.Load(); s != nil {
		return s.tracing
	}
	return nil
}

// meter returns the metrics of the running service, or nil (counts
// nothing).
func (a *App) meter() *observe.Metrics {
	if s := a.svc.Load(); s != nil {
		return s.metrics
	}
	return nil
}

// observedProvider counts model requests, tokens and time to first token.
type observedProvider struct {
	llm.Provider
	model string
	app   *App
}

func (p observedProvider) Unwrap() llm.Provider { return p.Provider }

func (p observedProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		ctx, end := p.app.tracer().Start(ctx, "model.request", "model", p.model)
		start := time.Now()
		var (
			ttft    time.Duration
			usage   llm.Usage
			failure error
		)
		for ev, err := range p.Provider.Stream(ctx, req) {
			if err != nil {
				failure = err
			} else if ttft == 0 && (ev.Type == llm.EventTextDelta || ev.Type == llm.EventToolCall || ev.Type == llm.EventReasoningDelta) {
				ttft = time.Since(start)
			}
			if ev.Type == llm.EventUsage {
				usage = ev.Usage
			}
			if !yield(ev, err) {
				break
			}
		}
		outcome := store.OutcomeOK
		if failure != nil {
			outcome = store.OutcomeError
		}
		p.app.meter().ObserveModelRequest(p.model, string(outcome), ttft, usage.InputTokens, usage.OutputTokens)
		end(failure)
	}
}

// tracedRunner makes a span per agent run, under the HTTP request's span;
// model requests and tool calls of the run are its children.
type tracedRunner struct {
	*agent.Runtime
	app *App
}

func (r tracedRunner) Run(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		ctx, end := r.app.tracer().Start(ctx, "agent.run", "agent", req.Agent, "conversation", req.ConversationID)
		var failure error
		for ev, err := range r.Runtime.Run(ctx, req) {
			if err != nil {
				failure = err
			}
			if !yield(ev, err) {
				break
			}
		}
		end(failure)
	}
}
