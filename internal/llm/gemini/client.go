package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// DefaultBaseURL is the Gemini API root, without the version.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// Options configure a [Client]. The zero value means defaults.
type Options struct {
	// BaseURL is the API root without "/v1beta". Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent in the x-goog-api-key header.
	APIKey string
	// Headers are added to every request (proxies, gateways).
	Headers map[string]string
	// Model is used when a request names none ("gemini-2.5-flash";
	// a "models/" prefix is accepted).
	Model string
	// Name is the provider name in errors. Empty means "gemini".
	Name string
	// HTTPOptions set the HTTP client, timeouts, retries and logger.
	llm.HTTPOptions
}

// Client talks to the Gemini API. It is safe for concurrent use.
type Client struct {
	base   string
	model  string
	name   string
	header http.Header
	tr     *llm.Transport
}

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
	// A base URL copied with its version ("…/v1beta") is taken as meant.
	base := strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1beta")
	c := &Client{base: base, model: o.Model, name: o.Name}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.name == "" {
		c.name = "gemini"
	}
	c.header = http.Header{"Content-Type": {"application/json"}}
	if o.APIKey != "" {
		c.header.Set("X-Goog-Api-Key", o.APIKey)
	}
	for k, v := range o.Headers {
		c.header.Set(k, v)
	}
	c.tr = llm.NewTransport(c.name, decodeError, &o.HTTPOptions)
	return c
}

// modelURL returns the URL of a model method ("generateContent").
func (c *Client) modelURL(model, method string) (string, error) {
	if model == "" {
		model = c.model
	}
	model = strings.TrimPrefix(model, "models/")
	if model == "" {
		return "", fmt.Errorf("%s: building request: no model given; set the model in the request or the provider options", c.name)
	}
	return c.base + "/v1beta/models/" + url.PathEscape(model) + ":" + method, nil
}

// Stream implements [llm.Provider] with streamGenerateContent over SSE.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return llm.Once(func(yield func(llm.Event, error) bool) {
		u, err := c.modelURL(req.Model, "streamGenerateContent")
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		body, err := c.encode(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		h := c.header.Clone()
		h.Set("Accept", "text/event-stream")
		resp, err := c.tr.Do(ctx, http.MethodPost, u+"?alt=sse", h, body)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		defer resp.Body.Close()
		newStream(c.name).run(resp.Body, yield)
	})
}

// Generate implements [llm.Generator] with generateContent.
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	u, err := c.modelURL(req.Model, "generateContent")
	if err != nil {
		return nil, err
	}
	body, err := c.encode(req)
	if err != nil {
		return nil, err
	}
	b, err := c.tr.Fetch(ctx, http.MethodPost, u, c.header, body, "response")
	if err != nil {
		return nil, err
	}
	s := newStream(c.name)
	var r wireResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, llm.MalformedError(c.name, "response", err)
	}
	return llm.Collect(func(yield func(llm.Event, error) bool) {
		if s.response(&r, yield) {
			s.finish(yield)
		}
	})
}

// Models implements [llm.Lister] with GET /v1beta/models, following pages.
// Names are returned without the "models/" prefix.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var names []string
	token := ""
	for range 50 { // a bound, in case a server repeats its page token
		u := c.base + "/v1beta/models?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		page, err := c.tr.GetModels(ctx, u, c.header)
		if err != nil {
			return nil, err
		}
		for _, n := range page.Names() {
			names = append(names, strings.TrimPrefix(n, "models/"))
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	return names, nil
}

// Check implements [llm.Checker]: the key is accepted and the configured
// model is listed.
func (c *Client) Check(ctx context.Context) error {
	m := strings.TrimPrefix(c.model, "models/")
	return llm.CheckListed(ctx, c, c.name, m, func(names []string) bool {
		return slices.Contains(names, m)
	}, func(names []string) string {
		return fmt.Sprintf("model %q is not offered to this API key (%d models listed)", m, len(names))
	})
}

// decodeError reads Gemini's error body, {"error":{"code","message",
// "status","details"}}. Gemini answers a wrong API key with 400
// INVALID_ARGUMENT and the reason API_KEY_INVALID in details; that is an
// authentication failure, not a bad request.
func decodeError(provider string, status int, header http.Header, body []byte) *llm.Error {
	e := llm.DecodeError(provider, status, header, body)
	var b struct {
		Error struct {
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &b) // the generic decoder already handled a bad body
	for _, d := range b.Error.Details {
		if d.Reason == "API_KEY_INVALID" || d.Reason == "API_KEY_SERVICE_BLOCKED" {
			e.Kind, e.Retryable, e.Err = llm.KindAuth, false, nil
		}
	}
	if status == http.StatusBadRequest && strings.Contains(e.Message, "API key not valid") {
		e.Kind, e.Retryable, e.Err = llm.KindAuth, false, nil
	}
	return e
}
