package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/internal/llm/gemini"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
)

// Model is one configured model, ready to use. Provider speaks the model's
// wire API behind the tool-mode logic (native, text protocol, or auto).
type Model struct {
	Name     string
	Config   config.Model
	Provider llm.Provider
	// Err says why the model could not be built (a bad OLLAMA_HOST, say);
	// Provider is nil then.
	Err error
}

// newModel builds the provider for one configured model.
func (a *App) newModel(name string, m config.Model) Model {
	logger := a.logger
	httpOpts := llm.HTTPOptions{Logger: logger.With(logKeyModel, name)}
	if m.Timeout > 0 {
		httpOpts.FirstTokenTimeout = m.Timeout
	}
	p, err := newProvider(m, httpOpts)
	if err != nil {
		return Model{Name: name, Config: m, Err: fmt.Errorf("model %s: %w", name, err)}
	}
	budget := 0
	if m.ContextWindow > 0 {
		// A quarter of the window for the tool manifest leaves room for the
		// conversation and the answer.
		budget = m.ContextWindow / 4
	}
	wrapped := textcall.Wrap(p, &textcall.Options{
		Mode:   textcall.Mode(m.ToolMode),
		Budget: budget,
		// The runtime's tool search must stay in a cut manifest, or the
		// tools not described could not be reached.
		Pinned:  []string{agent.FindToolsName},
		Indexer: textcallIndexer,
		Logger:  logger.With(logKeyModel, name),
	})
	return Model{Name: name, Config: m, Provider: observedProvider{Provider: wrapped, model: name, app: a}}
}

// newProvider returns the wire-API client of m, without the tool-mode
// logic: what [App.newModel] wraps, and what tool ranking embeds with.
func newProvider(m config.Model, httpOpts llm.HTTPOptions) (llm.Provider, error) {
	switch m.Provider {
	case "openai":
		return openai.New(&openai.Options{BaseURL: m.BaseURL, APIKey: m.APIKey.Value(), Headers: m.Headers, Model: m.Model, HTTPOptions: httpOpts}), nil
	case "anthropic":
		return anthropic.New(&anthropic.Options{BaseURL: m.BaseURL, APIKey: m.APIKey.Value(), Headers: m.Headers, Model: m.Model, MaxTokens: m.MaxTokens, HTTPOptions: httpOpts}), nil
	case "gemini":
		return gemini.New(&gemini.Options{BaseURL: m.BaseURL, APIKey: m.APIKey.Value(), Headers: m.Headers, Model: m.Model, HTTPOptions: httpOpts}), nil
	case "ollama":
		return ollama.New(&ollama.Options{Host: m.BaseURL, Headers: m.Headers, Model: m.Model, NumCtx: m.ContextWindow, HTTPOptions: httpOpts})
	default:
		return nil, fmt.Errorf("unknown provider %q", m.Provider) // Validate prevents this
	}
}

// Models returns every configured model in name order.
func (a *App) Models() []Model {
	a.modelsOnce.Do(func() {
		for _, name := range slices.Sorted(maps.Keys(a.cfg.Models)) {
			a.models = append(a.models, a.newModel(name, a.cfg.Models[name]))
		}
	})
	return a.models
}

// ModelCheck is whether one model's endpoint answered.
type ModelCheck struct {
	Name     string        `json:"name"`
	Provider string        `json:"provider"`
	Model    string        `json:"model"`
	BaseURL  string        `json:"baseURL,omitempty"`
	ToolMode string        `json:"toolMode"`
	Default  bool          `json:"default,omitempty"`
	OK       bool          `json:"ok"`
	Error    string        `json:"error,omitempty"`
	Took     time.Duration `json:"tookNs"`
}

// CheckModels asks every model's endpoint, concurrently, whether it
// answers, each within timeout.
func (a *App) CheckModels(ctx context.Context, timeout time.Duration) []ModelCheck {
	models := a.Models()
	out := make([]ModelCheck, len(models))
	var wg sync.WaitGroup
	for i, m := range models {
		out[i] = ModelCheck{
			Name: m.Name, Provider: m.Config.Provider, Model: m.Config.Model, BaseURL: m.Config.BaseURL,
			ToolMode: m.Config.ToolMode, Default: m.Name == a.cfg.DefaultModel,
		}
		if m.Err != nil {
			out[i].Error = m.Err.Error()
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			start := time.Now()
			err := checkModel(ctx, m.Provider)
			out[i].Took = time.Since(start)
			if err != nil {
				out[i].Error = err.Error()
			} else {
				out[i].OK = true
			}
		})
	}
	wg.Wait()
	return out
}

// checkModel uses the adapter's cheap check (every adapter has one).
func checkModel(ctx context.Context, p llm.Provider) error {
	for {
		u, ok := p.(interface{ Unwrap() llm.Provider })
		if !ok {
			break
		}
		p = u.Unwrap()
	}
	c, ok := p.(llm.Checker)
	if !ok {
		return errors.New("this provider cannot be checked")
	}
	return c.Check(ctx)
}
