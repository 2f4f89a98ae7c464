package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ErrNoModel reports that no model is configured, so nothing can answer.
var ErrNoModel = errors.New("no model configured")

// NoModelHint says how to connect a model; the CLI, /readyz and the UI show it.
const NoModelHint = "add a models section to the config, or set OPENAI_API_KEY (with OPENAI_BASE_URL for Ollama, vLLM or llama.cpp), ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST; see docs/PROVIDERS.md"

// errClosed is returned by methods of an App after Close.
var errClosed = errors.New("switchboard is shutting down")

// Store opens the database on first use: PostgreSQL when database.url is
// set, else SQLite in the data directory, and writes the config's agents
// into it. A failed open is not kept: the next call tries again, with its
// own context. Concurrent callers wait for one open. After [App.Close] it
// fails.
func (a *App) Store(ctx context.Context) (store.Store, error) {
	a.storeMu.Lock()
	defer a.storeMu.Unlock()
	switch {
	case a.storeClosed:
		return nil, errClosed
	case a.store != nil:
		return a.store, nil
	}
	st, sh, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	a.store, a.shared = st, sh
	return st, nil
}

// replicas returns what the open store offers replicas, nil for a store
// one process holds or none open yet.
func (a *App) replicas() *replicas {
	a.storeMu.Lock()
	defer a.storeMu.Unlock()
	return a.shared
}

// openStore opens the configured database and returns it with what it
// offers replicas: PostgreSQL's capability, nil for SQLite.
func (a *App) openStore(ctx context.Context) (store.Store, *replicas, error) {
	var (
		st  store.Store
		sh  *replicas
		err error
	)
	if u := a.cfg.Database.URL; u != "" {
		var pg *postgres.DB
		if pg, err = postgres.Open(ctx, u, nil); err == nil {
			st, sh = pg, postgresReplicas(pg)
		}
	} else {
		if err := os.MkdirAll(a.cfg.Data, 0o700); err != nil {
			return nil, nil, fmt.Errorf("creating the data directory %s: %w", a.cfg.Data, err)
		}
		st, err = sqlite.Open(ctx, a.cfg.SQLitePath(), nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening the database: %w", err)
	}
	if err := seedAgents(ctx, st, a.config().Agents, false); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, sh, nil
}

// recoverable is the part of the store recoverStore works on.
type recoverable interface {
	InterruptRunning(ctx context.Context) (int64, error)
	ExpirePending(ctx context.Context, before time.Time) (int64, error)
}

// recoverStore marks audit records left running by a previous process as
// interrupted and approvals left pending as expired, so a restart shows
// them rather than losing them. Only the long-running service does this:
// a short command sharing the database (audit, chat -p) must not mark the
// service's own calls in flight as interrupted.
func recoverStore(ctx context.Context, st recoverable, logger *slog.Logger) error {
	n, err := st.InterruptRunning(ctx)
	if err != nil {
		return fmt.Errorf("marking interrupted tool calls: %w", err)
	}
	if n > 0 {
		logger.Warn("tool calls interrupted by the last shutdown", logKeyCount, n)
	}
	if rl, ok := st.(store.RunLog); ok {
		runs, approvals, err := rl.InterruptRuns(ctx)
		if err != nil {
			return fmt.Errorf("marking interrupted runs: %w", err)
		}
		if runs+approvals > 0 {
			logger.Warn("runs interrupted and approvals expired by the last shutdown", logKeyCount, runs, logKeyApprovals, approvals)
		}
	}
	if n, err = st.ExpirePending(ctx, time.Now()); err != nil {
		return fmt.Errorf("expiring approvals left pending: %w", err)
	}
	if n > 0 {
		logger.Warn("approvals left pending by the last shutdown are expired", logKeyCount, n)
	}
	return nil
}

// seedAgents writes the config's agents into the store: missing ones are
// created; with overwrite (at `serve` start) existing ones are rewritten
// from the config, which is the source of truth for its agents, so a
// server assigned at runtime to a config agent lasts until the service
// restarts. Short commands never overwrite, so they cannot undo what the
// running service changed. Agents created at runtime are left alone.
func seedAgents(ctx context.Context, st store.Agents, cfg map[string]config.Agent, overwrite bool) error {
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		c := cfg[name]
		want := store.Agent{
			Name: name, Description: c.Description, Model: c.Model, Prompt: c.Prompt,
			Servers: c.Servers, Router: c.Router, Source: store.SourceConfig,
		}
		cur, err := st.GetAgent(ctx, name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			_, err = st.CreateAgent(ctx, want)
		case err == nil && !overwrite:
			continue
		case err == nil:
			want.Version = cur.Version
			_, err = st.UpdateAgent(ctx, want)
		}
		if err != nil {
			return fmt.Errorf("writing agent %s from the config: %w", name, err)
		}
	}
	return nil
}

// Runtime returns the agent runtime, building it (and opening the store)
// on first use.
func (a *App) Runtime(ctx context.Context) (*agent.Runtime, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	g, err := a.Gate(ctx)
	if err != nil {
		return nil, err
	}
	a.runtimeOnce.Do(func() {
		// The gate: the policy, limit and audit log of every surface.
		a.runtime = agent.New(a.agentModel, a.registry, g, &agent.Options{
			Assistant: store.Agent{
				Model: a.cfg.Assistant.Model, Prompt: a.cfg.Assistant.Prompt, Router: a.cfg.Assistant.Router,
			},
			Agents:      st,
			History:     runtimeStore{st},
			Approvals:   forRuntime(st, a.replicas()),
			Usage:       st,
			Limits:      agentLimits(a.config()),
			ToolBudget:  a.cfg.ToolSearch.MaxTools,
			RankOptions: a.rankOptions,
			QueryVector: a.queryVector,
			// Read at every summary: a reload applies to the next one.
			SummaryModel: func(agent string) string { return a.config().SummaryModelFor(agent) },
			Logger:       a.logger.With(logKeyComponent, "agent"),
		})
		// As the gate: published, then the configuration read again.
		a.runtimeBuilt.Store(a.runtime)
		a.runtime.SetLimits(agentLimits(a.config()))
	})
	return a.runtime, nil
}

// agentModel resolves a model name ("" for the default) for the runtime.
func (a *App) agentModel(name string) (agent.Model, error) {
	cfg := a.config() // each turn resolves its model in the configuration applied last
	if name == "" {
		name = cfg.DefaultModel
	}
	if name == "" {
		return agent.Model{}, fmt.Errorf("%w: %s", ErrNoModel, NoModelHint)
	}
	for _, m := range a.Models() {
		if m.Name != name {
			continue
		}
		if m.Err != nil {
			return agent.Model{}, m.Err
		}
		return agent.Model{
			Name: m.Name, Provider: m.Provider, ID: m.Config.Model, ToolMode: agent.ToolMode(m.Config.ToolMode),
			ContextWindow: m.Config.ContextWindow, MaxTokens: m.Config.MaxTokens, Temperature: m.Config.Temperature,
		}, nil
	}
	return agent.Model{}, fmt.Errorf("no model named %q; configured: %v", name, slices.Sorted(maps.Keys(cfg.Models)))
}

func policy(c config.Approvals) agent.Policy {
	p := agent.Policy{
		Mode:        agent.PolicyMode(c.Mode),
		ReadOnly:    agent.Action(c.ReadOnly),
		Destructive: agent.Action(c.Destructive),
		Unannotated: agent.Action(c.Unannotated),
	}
	for _, r := range c.Rules {
		p.Rules = append(p.Rules, agent.Rule{Server: r.Server, Tool: r.Tool, Action: agent.Action(r.Policy)})
	}
	return p
}

// sample answers an MCP server's sampling request through the runtime.
func (a *App) sample(ctx context.Context, server string, req *mcphost.SamplingRequest) (*mcphost.SamplingResult, error) {
	rt, err := a.Runtime(ctx)
	if err != nil {
		return nil, err
	}
	sr := &agent.SampleRequest{Server: server, System: req.SystemPrompt, MaxTokens: int(req.MaxTokens), Stop: req.StopSequences}
	if req.Temperature != 0 {
		t := req.Temperature
		sr.Temperature = &t
	}
	for _, m := range req.Messages {
		role := llm.RoleUser
		if m.Role == "assistant" {
			role = llm.RoleAssistant
		}
		msg := llm.Message{Role: role}
		switch m.Content.Type {
		case tools.ContentText:
			msg.Content = []llm.Part{llm.TextPart(m.Content.Text)}
		case tools.ContentImage:
			msg.Content = []llm.Part{llm.ImagePart(m.Content.MIMEType, m.Content.Data)}
		default:
			continue
		}
		sr.Messages = append(sr.Messages, msg)
	}
	res, err := rt.Sample(ctx, sr)
	if err != nil {
		return nil, err
	}
	return &mcphost.SamplingResult{
		Role: "assistant", Content: tools.Content{Type: tools.ContentText, Text: res.Text},
		Model: res.Model, StopReason: res.StopReason,
	}, nil
}

// elicit puts an MCP server's elicitation request to the user through the runtime.
func (a *App) elicit(ctx context.Context, _ string, req *tools.ElicitRequest) (*tools.ElicitResult, error) {
	rt, err := a.Runtime(ctx)
	if err != nil {
		return nil, err
	}
	return rt.Elicit(ctx, req)
}

// elicitationComplete passes a server's notifications/elicitation/complete
// to the runtime, if one was built (a question needs a running turn).
func (a *App) elicitationComplete(server, id string) {
	if rt := a.builtRuntime(); rt != nil {
		rt.ElicitationComplete(context.Background(), server, id)
	}
}

// Agents lists the named agents (config and runtime), by name.
func (a *App) Agents(ctx context.Context) ([]store.Agent, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListAgents(ctx)
}

// History returns a stored conversation's messages, oldest first; a
// conversation that does not exist has none.
func (a *App) History(ctx context.Context, conversationID string) ([]store.Message, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	msgs, err := st.ListMessages(ctx, conversationID, store.MessageFilter{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return msgs, err
}

// builtRuntime is the runtime if Runtime has built it, nil otherwise.
func (a *App) builtRuntime() *agent.Runtime { return a.runtimeBuilt.Load() }
