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
	a.modelsMu.Lock()
	defer a.modelsMu.Unlock()
	if !a.modelsOK {
		a.models = a.buildModelsLocked(a.config(), nil)
		a.modelsOK = true
	}
	return a.models
}

// buildModelsLocked returns the models of cfg, reusing from a.models those
// whose entry is not in changed: a turn that has its provider keeps it,
// and an unchanged model keeps its connections. a.modelsMu must be held.
func (a *App) buildModelsLocked(cfg *config.Config, changed map[string]bool) []Model {
	var out []Model
	for _, name := range slices.Sorted(maps.Keys(cfg.Models)) {
		i := slices.IndexFunc(a.models, func(m Model) bool { return m.Name == name })
		if i >= 0 && !changed[name] {
			out = append(out, a.models[i])
			continue
		}
		out = append(out, a.newModel(name, cfg.Models[name]))
	}
	return out
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
	// ResolvedToolMode is how the model gets its tools, "native" or "text":
	// ToolMode when explicit, else what the endpoint said about the model
	// (see [resolveToolMode]). Empty when the model could not be built.
	ResolvedToolMode string `json:"resolvedToolMode,omitempty"`
	// ToolModeReason says why, for people: "configured", or the endpoint's
	// answer (`ollama: no "tools" capability`).
	ToolModeReason string `json:"toolModeReason,omitempty"`
}

// CheckModels asks every model's endpoint, concurrently, whether it
// answers, and, for toolMode auto, what it says about tool support, each
// within timeout.
func (a *App) CheckModels(ctx context.Context, timeout time.Duration) []ModelCheck {
	models := a.Models()
	out := make([]ModelCheck, len(models))
	var wg sync.WaitGroup
	for i, m := range models {
		out[i] = ModelCheck{
			Name: m.Name, Provider: m.Config.Provider, Model: m.Config.Model, BaseURL: m.Config.BaseURL,
			ToolMode: m.Config.ToolMode, Default: m.Name == a.config().DefaultModel,
		}
		if m.Err != nil {
			out[i].Error = m.Err.Error()
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			out[i].ResolvedToolMode, out[i].ToolModeReason = toolMode(ctx, m)
		})
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
	c, ok := adapter(p).(llm.Checker)
	if !ok {
		return errors.New("this provider cannot be checked")
	}
	return c.Check(ctx)
}

// adapter returns the wire-API client under p's wrappers, for its optional
// interfaces.
func adapter(p llm.Provider) llm.Provider {
	for {
		u, ok := p.(interface{ Unwrap() llm.Provider })
		if !ok {
			return p
		}
		p = u.Unwrap()
	}
}

// toolMode resolves m's tool mode, asking its endpoint when toolMode is
// auto and the adapter can ask. The answer is remembered by the adapter, so
// the first turn with tools does not ask again.
func toolMode(ctx context.Context, m Model) (mode, reason string) {
	if m.Config.ToolMode != config.ToolModeAuto && m.Config.ToolMode != "" {
		return resolveToolMode(m.Config.ToolMode, m.Config.Provider, nil, nil)
	}
	r, ok := adapter(m.Provider).(llm.ToolReporter)
	if !ok {
		return resolveToolMode(m.Config.ToolMode, m.Config.Provider, nil, nil)
	}
	rep, err := r.ToolReport(ctx, "")
	return resolveToolMode(m.Config.ToolMode, m.Config.Provider, &rep, err)
}

// resolveToolMode is the rule of toolMode: explicit native or text is
// never overridden; auto follows what the endpoint said (rep nil when the
// adapter cannot ask, err non-nil when asking did not finish), and, when it
// said nothing, stays with native first and the text protocol once the
// server rejects tools, as the tool-mode wrapper does.
func resolveToolMode(configured, provider string, rep *llm.ToolReport, err error) (mode, reason string) {
	const fallback = "native first, text if the server rejects tools"
	switch {
	case configured == config.ToolModeNative || configured == config.ToolModeText:
		return configured, "configured"
	case err != nil:
		return config.ToolModeNative, fmt.Sprintf("could not ask the endpoint (%v); %s", err, fallback)
	case rep == nil:
		return config.ToolModeNative, fmt.Sprintf("the %s API takes tools natively; text if the server rejects them", provider)
	case rep.Answer == llm.ToolsNative:
		return config.ToolModeNative, rep.String()
	case rep.Answer == llm.ToolsText:
		return config.ToolModeText, rep.String()
	default:
		return config.ToolModeNative, rep.String() + "; " + fallback
	}
}
