package openai

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure a [Client]. The zero value means defaults.
type Options struct {
	// BaseURL is the API root, up to and including /v1. Empty means
	// DefaultBaseURL; Ollama's is http://localhost:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token when not empty (local servers need none).
	APIKey string
	// Headers are added to every request (organisation, project, proxies).
	Headers map[string]string
	// Model is used when a request names none.
	Model string
	// Name is the provider name in errors. Empty means "openai".
	Name string
	// MaxTokensField is the request field for [llm.Request.MaxTokens]. Empty
	// means "max_completion_tokens" for OpenAI itself, which rejects
	// max_tokens on reasoning models, and "max_tokens" for other servers,
	// which may know only that.
	MaxTokensField string
	// ProbeTimeout bounds the questions asked once per model about its tool
	// support ([Client.ToolReport]). Zero means [DefaultProbeTimeout].
	ProbeTimeout time.Duration
	// HTTPOptions set the HTTP client, timeouts, retries and logger.
	llm.HTTPOptions
}

// Client talks to one OpenAI-compatible endpoint. It is safe for concurrent use.
type Client struct {
	base      string
	model     string
	name      string
	maxTokens string
	header    http.Header
	tr        *llm.Transport

	probeTimeout time.Duration
	tools        llm.ToolReports
}

var (
	_ llm.Provider     = (*Client)(nil)
	_ llm.Generator    = (*Client)(nil)
	_ llm.Checker      = (*Client)(nil)
	_ llm.Lister       = (*Client)(nil)
	_ llm.ToolReporter = (*Client)(nil)
	_ llm.ToolSupport  = (*Client)(nil)
)

// New returns a Client. opts nil means defaults; opts is copied.
func New(opts *Options) *Client {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Client{
		base: strings.TrimRight(o.BaseURL, "/"), model: o.Model, name: o.Name, maxTokens: o.MaxTokensField,
		probeTimeout: o.ProbeTimeout,
	}
	if c.probeTimeout <= 0 {
		c.probeTimeout = DefaultProbeTimeout
	}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.name == "" {
		c.name = "openai"
	}
	if c.maxTokens == "" {
		c.maxTokens = "max_tokens"
		if c.base == DefaultBaseURL {
			c.maxTokens = "max_completion_tokens"
		}
	}
	c.header = http.Header{"Content-Type": {"application/json"}}
	if o.APIKey != "" {
		c.header.Set("Authorization", "Bearer "+o.APIKey)
	}
	for k, v := range o.Headers {
		c.header.Set(k, v)
	}
	c.tr = llm.NewTransport(c.name, nil, &o.HTTPOptions)
	return c
}

// Stream implements [llm.Provider].
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	body, err := c.encode(req, true)
	if err != nil {
		return llm.Failed(err)
	}
	h := c.header.Clone()
	h.Set("Accept", "text/event-stream")
	return c.tr.Stream(ctx, http.MethodPost, c.base+"/chat/completions", h, body, c.decode)
}

// decode yields the events of one response.
func (c *Client) decode(resp *http.Response, yield func(llm.Event, error) bool) {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		// Some servers ignore stream:true and answer whole.
		c.whole(resp.Body, yield)
		return
	}
	newStream(c.name).run(resp.Body, yield)
}

// whole yields the events of a non-streaming response body.
func (c *Client) whole(r io.Reader, yield func(llm.Event, error) bool) {
	b, err := io.ReadAll(r)
	if err != nil {
		yield(llm.Event{}, llm.StreamError(c.name, "response", err))
		return
	}
	resp, err := decodeCompletion(c.name, b)
	if err != nil {
		yield(llm.Event{}, err)
		return
	}
	for _, ev := range responseEvents(resp) {
		if !yield(ev, nil) {
			return
		}
	}
}

// Generate implements [llm.Generator] with a non-streaming request.
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	body, err := c.encode(req, false)
	if err != nil {
		return nil, err
	}
	b, err := c.tr.Fetch(ctx, http.MethodPost, c.base+"/chat/completions", c.header, body, "response")
	if err != nil {
		return nil, err
	}
	return decodeCompletion(c.name, b)
}

// Models implements [llm.Lister] with GET /models.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	return c.tr.ModelNames(ctx, c.base+"/models", c.header)
}

// Check implements [llm.Checker]: the endpoint lists its models, and the
// configured model is among them when the list is not empty.
func (c *Client) Check(ctx context.Context) error {
	// Ollama lists "qwen2.5:latest" for a model asked for as "qwen2.5".
	return llm.CheckListed(ctx, c, c.name, c.model, func(ids []string) bool {
		return len(ids) == 0 || slices.Contains(ids, c.model) || slices.Contains(ids, c.model+":latest")
	}, func(ids []string) string {
		return fmt.Sprintf("model %q is not served at %s; it serves %s", c.model, c.base, strings.Join(ids, ", "))
	})
}
