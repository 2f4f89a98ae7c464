package anthropic

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

const (
	// DefaultBaseURL is Anthropic's API root, without /v1.
	DefaultBaseURL = "https://api.anthropic.com"
	// APIVersion is the anthropic-version header the wire format follows.
	APIVersion = "2023-06-01"
	// DefaultMaxTokens is sent when a request sets no MaxTokens; the API
	// requires the field.
	DefaultMaxTokens = 4096
)

// Options configure a [Client]. The zero value means defaults.
type Options struct {
	// BaseURL is the API root without /v1. Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key.
	APIKey string
	// Headers are added to every request (anthropic-beta, proxies).
	Headers map[string]string
	// Model is used when a request names none.
	Model string
	// MaxTokens is used when a request sets none. Zero means DefaultMaxTokens.
	MaxTokens int
	// HTTPOptions set the HTTP client, timeouts, retries and logger.
	llm.HTTPOptions
}

// Client talks to the Messages API. It is safe for concurrent use.
type Client struct {
	base      string
	model     string
	maxTokens int
	header    http.Header
	tr        *llm.Transport
}

const name = "anthropic"

var (
	_ llm.Provider  = (*Client)(nil)
	_ llm.Generator = (*Client)(nil)
	_ llm.Checker   = (*Client)(nil)
	_ llm.Lister    = (*Client)(nil)
)

// New returns a Client. opts nil means defaults; opts is copied.
func New(opts *Options) *Client {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Client{base: strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1"), model: o.Model, maxTokens: o.MaxTokens}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.maxTokens <= 0 {
		c.maxTokens = DefaultMaxTokens
	}
	c.header = http.Header{
		"Content-Type":      {"application/json"},
		"Anthropic-Version": {APIVersion},
	}
	if o.APIKey != "" {
		c.header.Set("X-Api-Key", o.APIKey)
	}
	for k, v := range o.Headers {
		c.header.Set(k, v)
	}
	c.tr = llm.NewTransport(name, nil, &o.HTTPOptions)
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
	return c.tr.Stream(ctx, http.MethodPost, c.base+"/v1/messages", h, body,
		func(resp *http.Response, yield func(llm.Event, error) bool) { newStream().run(resp.Body, yield) })
}

// Generate implements [llm.Generator] with a non-streaming request.
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	body, err := c.encode(req, false)
	if err != nil {
		return nil, err
	}
	b, err := c.tr.Fetch(ctx, http.MethodPost, c.base+"/v1/messages", c.header, body, "response")
	if err != nil {
		return nil, err
	}
	return decodeMessage(b)
}

// Models implements [llm.Lister] with GET /v1/models.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	return c.tr.ModelNames(ctx, c.base+"/v1/models?limit=1000", c.header)
}

// Check implements [llm.Checker]: the key is accepted and the configured
// model is listed. Aliases ("claude-sonnet-4-0", "...-latest") are not
// listed, so a model is missing only when no listed id starts with its stem.
func (c *Client) Check(ctx context.Context) error {
	stem := strings.TrimSuffix(strings.TrimSuffix(c.model, "-latest"), "-0")
	return llm.CheckListed(ctx, c, name, c.model, func(ids []string) bool {
		return len(ids) == 0 || slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(id, stem) })
	}, func([]string) string {
		return fmt.Sprintf("model %q is not listed by %s", c.model, c.base)
	})
}
