package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ToolAnswer is what an endpoint said about a model's native tool calling.
type ToolAnswer int

const (
	// ToolsUnknown: the endpoint did not say (no probe answered, or none
	// of the answers mentioned tools).
	ToolsUnknown ToolAnswer = iota
	// ToolsNative: the endpoint says the model takes tools natively.
	ToolsNative
	// ToolsText: the endpoint says the model does not take tools natively.
	ToolsText
)

// ToolReport is what a provider learned from its endpoint about one model's
// native tool calling, and how.
type ToolReport struct {
	Answer ToolAnswer
	// Source names who answered, for people: "ollama", "llama.cpp",
	// "lm studio", "model list"; empty when nobody did.
	Source string
	// Reason says what the answer rests on (`no "tools" capability`), or,
	// for [ToolsUnknown], why nothing is known.
	Reason string
}

// String renders the report as "source: reason", or the reason alone.
func (r ToolReport) String() string {
	if r.Source == "" {
		return r.Reason
	}
	return r.Source + ": " + r.Reason
}

// Supports answers [ToolSupport] from the report: an unknown answer is an
// error wrapping [ErrToolSupportUnknown], so callers keep their default.
func (r ToolReport) Supports() (bool, error) {
	switch r.Answer {
	case ToolsNative:
		return true, nil
	case ToolsText:
		return false, nil
	default:
		return false, fmt.Errorf("%w: %s", ErrToolSupportUnknown, r)
	}
}

// ErrToolSupportUnknown is wrapped by the error a [ToolSupport] returns when
// the endpoint did not say whether the model takes tools.
var ErrToolSupportUnknown = errors.New("the endpoint does not say whether the model takes tools")

// ToolReporter is implemented by providers that ask their endpoint whether
// a model takes native tools (Ollama's /api/show capabilities, llama.cpp's
// /props chat template, LM Studio's and OpenRouter's model lists), for
// `toolMode: auto` and `switchboard models`. The endpoint is asked once per
// model for the life of the provider, within the provider's probe timeout;
// later calls answer from memory. model "" means the provider's configured
// model. The error is non-nil only when ctx ended before an answer: a probe
// that fails is a [ToolsUnknown] report saying why. Safe for concurrent use.
type ToolReporter interface {
	ToolReport(ctx context.Context, model string) (ToolReport, error)
}

// ToolReports remembers, per model, the report of a probe, so an endpoint is
// asked once per process however many requests wait for it. The zero value
// is ready to use; it is safe for concurrent use.
type ToolReports struct {
	mu sync.Mutex
	// probes holds one entry per model asked about. Guarded by mu.
	probes map[string]*toolProbe
}

// toolProbe is one model's probe: done is closed when it ends; report and
// ok are written before that and only read after.
type toolProbe struct {
	done   chan struct{}
	report ToolReport
	ok     bool
}

// Get returns the report for model, running probe in the caller's
// goroutine when no report is remembered and no probe is under way; callers
// that arrive meanwhile wait for that probe. A probe whose ctx ended is not
// remembered (its report would reflect the caller leaving, not the
// endpoint): Get then returns ctx's error, and the next caller probes again.
func (c *ToolReports) Get(ctx context.Context, model string, probe func(context.Context) ToolReport) (ToolReport, error) {
	for {
		c.mu.Lock()
		p := c.probes[model]
		if p == nil {
			p = &toolProbe{done: make(chan struct{})}
			if c.probes == nil {
				c.probes = make(map[string]*toolProbe)
			}
			c.probes[model] = p
			c.mu.Unlock()
			return c.run(ctx, model, p, probe)
		}
		c.mu.Unlock()
		select {
		case <-p.done:
			if p.ok {
				return p.report, nil
			}
			// The prober left early; try again (perhaps probing ourselves).
		case <-ctx.Done():
			return ToolReport{}, fmt.Errorf("waiting for the tool support of %q: %w", model, ctx.Err())
		}
	}
}

func (c *ToolReports) run(ctx context.Context, model string, p *toolProbe, probe func(context.Context) ToolReport) (ToolReport, error) {
	r := probe(ctx)
	if err := ctx.Err(); err != nil {
		c.mu.Lock()
		delete(c.probes, model)
		c.mu.Unlock()
		close(p.done)
		return ToolReport{}, fmt.Errorf("asking for the tool support of %q: %w", model, err)
	}
	p.report, p.ok = r, true
	close(p.done)
	return r, nil
}
