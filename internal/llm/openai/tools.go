package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// DefaultProbeTimeout bounds the questions asked of an endpoint about a
// model's tool support: local servers answer in milliseconds, and a server
// that does not answer within it is treated as not saying.
const DefaultProbeTimeout = 3 * time.Second

// probe is one question asked of the endpoint about a model.
type probe struct {
	method, url string
	body        []byte
	read        func(b []byte) (llm.ToolReport, bool)
}

// ToolReport implements [llm.ToolReporter]. An OpenAI-compatible base URL
// may be llama.cpp's server, Ollama's /v1, LM Studio, vLLM, OpenRouter or
// OpenAI itself, so the endpoint is asked, concurrently and within the
// probe timeout, each server's own way: GET /props (llama.cpp), POST
// /api/show (Ollama), GET /api/v1/models and /api/v0/models (LM Studio),
// GET {BaseURL}/models (OpenRouter's supported_parameters, Mistral's
// capabilities). The first answer that says something, in that order,
// wins. Every probe goes to the base URL's scheme, host and port, and
// redirects are not followed, so the API key reaches no other host.
func (c *Client) ToolReport(ctx context.Context, model string) (llm.ToolReport, error) {
	if model == "" {
		model = c.model
	}
	return c.tools.Get(ctx, model, func(ctx context.Context) llm.ToolReport { return c.probeTools(ctx, model) })
}

// SupportsTools implements [llm.ToolSupport] from [Client.ToolReport].
func (c *Client) SupportsTools(ctx context.Context, model string) (bool, error) {
	r, err := c.ToolReport(ctx, model)
	if err != nil {
		return false, err
	}
	return r.Supports()
}

// probes lists the questions for model, most telling first.
func (c *Client) probes(model string) ([]probe, error) {
	u, err := url.Parse(c.base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an http(s) URL", c.base)
	}
	list := probe{method: http.MethodGet, url: c.base + "/models", read: func(b []byte) (llm.ToolReport, bool) {
		return llm.ReadModelList(b, model)
	}}
	if u.Hostname() == "api.openai.com" {
		// OpenAI serves none of the local servers' endpoints.
		return []probe{list}, nil
	}
	// The servers' own endpoints hang off the root, above /v1.
	root := *u
	root.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	root.RawPath, root.RawQuery, root.Fragment = "", "", ""
	at := func(path string, q url.Values) string {
		v := root
		v.Path += path
		v.RawQuery = q.Encode()
		return v.String()
	}
	show, err := json.Marshal(map[string]string{"model": model})
	if err != nil {
		return nil, fmt.Errorf("encoding show request: %w", err)
	}
	return []probe{
		// autoload=false: a llama.cpp router must not load a model just to be asked.
		{method: http.MethodGet, url: at("/props", url.Values{"model": {model}, "autoload": {"false"}}), read: llm.ReadLlamaCppProps},
		{method: http.MethodPost, url: at("/api/show", nil), body: show, read: llm.ReadOllamaShow},
		{method: http.MethodGet, url: at("/api/v1/models", nil), read: func(b []byte) (llm.ToolReport, bool) {
			return llm.ReadLMStudioModels(b, model)
		}},
		{method: http.MethodGet, url: at("/api/v0/models", nil), read: func(b []byte) (llm.ToolReport, bool) {
			r, ok := llm.ReadModelList(b, model)
			r.Source = llm.SourceLMStudio
			return r, ok
		}},
		list,
	}, nil
}

// probeTools asks every probe at once and picks the answer.
func (c *Client) probeTools(ctx context.Context, model string) llm.ToolReport {
	probes, err := c.probes(model)
	if err != nil {
		return llm.ToolReport{Reason: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, c.probeTimeout)
	defer cancel()
	type answer struct {
		report llm.ToolReport
		ok     bool
		err    error
	}
	answers := make([]answer, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() {
			status, b, err := c.tr.Probe(ctx, p.method, p.url, c.header, p.body)
			switch {
			case err != nil:
				answers[i].err = err
			case status == http.StatusOK:
				answers[i].report, answers[i].ok = p.read(b)
			}
		})
	}
	wg.Wait()
	var said *llm.ToolReport // the first server that answered as itself
	timedOut, failed := false, 0
	for i := range answers {
		a := &answers[i]
		if a.ok && a.report.Answer != llm.ToolsUnknown {
			return a.report
		}
		if a.ok && said == nil {
			said = &a.report
		}
		if a.err != nil {
			failed++
		}
		timedOut = timedOut || errors.Is(a.err, context.DeadlineExceeded)
	}
	switch {
	case said != nil:
		return *said
	case timedOut:
		return llm.ToolReport{Reason: fmt.Sprintf("the endpoint did not say within %v", c.probeTimeout)}
	case failed == len(answers):
		return llm.ToolReport{Reason: "the endpoint did not answer: " + answers[0].err.Error()}
	default:
		return llm.ToolReport{Reason: "the endpoint does not say (no /props, /api/show or tool fields in its model list)"}
	}
}
