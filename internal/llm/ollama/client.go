package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// DefaultHost is where Ollama listens unless told otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// Options configure a [Client]. The zero value means defaults.
type Options struct {
	// Host is the server, with OLLAMA_HOST's forms: "", "host", "host:port",
	// ":port", "http://host", "https://host:port/path". Missing parts
	// default to http, 127.0.0.1 and port 11434 (80 or 443 when a scheme is
	// given without a port). See [ParseHost].
	Host string
	// Headers are added to every request (a proxy's Authorization).
	Headers map[string]string
	// Model is used when a request names none ("llama3.2", "qwen3:8b").
	Model string
	// Name is the provider name in errors. Empty means "ollama".
	Name string
	// NumCtx sets the context window (options.num_ctx) when not zero;
	// Ollama's own default is small and silently cuts long prompts.
	NumCtx int
	// KeepAlive is how long the model stays loaded after a request ("5m",
	// "-1" for ever); empty means the server's default.
	KeepAlive string
	// ProbeTimeout bounds the /api/show question asked once per model about
	// its tool support ([Client.ToolReport]). Zero means 3s.
	ProbeTimeout time.Duration
	// HTTPOptions set the HTTP client, timeouts, retries and logger.
	llm.HTTPOptions
}

// Client talks to one Ollama server's native API. It is safe for
// concurrent use.
type Client struct {
	base      string
	model     string
	name      string
	numCtx    int
	keepAlive string
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
	_ llm.ToolSupport  = (*Client)(nil)
	_ llm.ToolReporter = (*Client)(nil)
)

// New returns a Client. opts nil means defaults; opts is copied. It fails
// only when Host cannot be read.
func New(opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Client{model: o.Model, name: o.Name, numCtx: o.NumCtx, keepAlive: o.KeepAlive, probeTimeout: o.ProbeTimeout}
	if c.probeTimeout <= 0 {
		c.probeTimeout = 3 * time.Second
	}
	if c.name == "" {
		c.name = "ollama"
	}
	base, err := ParseHost(o.Host)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	c.base = base
	c.header = http.Header{"Content-Type": {"application/json"}}
	for k, v := range o.Headers {
		c.header.Set(k, v)
	}
	c.tr = llm.NewTransport(c.name, nil, &o.HTTPOptions)
	return c, nil
}

// ParseHost reads a host the way Ollama reads OLLAMA_HOST and returns the
// base URL: "" gives http://127.0.0.1:11434, "example.com" gives
// http://example.com:11434, ":8080" gives http://127.0.0.1:8080,
// "https://example.com" gives https://example.com:443.
func ParseHost(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultHost, nil
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return "", fmt.Errorf("reading host %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("reading host %q: invalid port %q", s, port)
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: strings.TrimRight("/"+path, "/")}
	return u.String(), nil
}

// Stream implements [llm.Provider] with POST /api/chat, streamed as NDJSON.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return llm.Once(func(yield func(llm.Event, error) bool) {
		body, err := c.encode(req, true)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		resp, err := c.tr.Do(ctx, http.MethodPost, c.base+"/api/chat", c.header, body)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		defer resp.Body.Close()
		newStream(c.name).run(resp.Body, yield)
	})
}

// Generate implements [llm.Generator] with a non-streaming /api/chat.
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	body, err := c.encode(req, false)
	if err != nil {
		return nil, err
	}
	resp, err := c.tr.Do(ctx, http.MethodPost, c.base+"/api/chat", c.header, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// A whole answer is one NDJSON line with done: true.
	r := resp.Body
	return llm.Collect(func(yield func(llm.Event, error) bool) { newStream(c.name).run(r, yield) })
}

// ToolReport implements [llm.ToolReporter] with POST /api/show, asked once
// per model within the probe timeout: the model's capabilities list
// "tools", or, on servers older than the capabilities field, its template
// ranges over .Tools ([llm.ReadOllamaShow]). Redirects are not followed.
func (c *Client) ToolReport(ctx context.Context, model string) (llm.ToolReport, error) {
	if model == "" {
		model = c.model
	}
	return c.tools.Get(ctx, model, func(ctx context.Context) llm.ToolReport { return c.show(ctx, model) })
}

// SupportsTools implements [llm.ToolSupport] from [Client.ToolReport].
func (c *Client) SupportsTools(ctx context.Context, model string) (bool, error) {
	r, err := c.ToolReport(ctx, model)
	if err != nil {
		return false, err
	}
	return r.Supports()
}

// show asks /api/show about model and reads the answer.
func (c *Client) show(ctx context.Context, model string) llm.ToolReport {
	unknown := llm.ToolReport{Source: llm.SourceOllama}
	body, err := json.Marshal(map[string]string{"model": model})
	if err != nil {
		unknown.Reason = "encoding the show request: " + err.Error()
		return unknown
	}
	ctx, cancel := context.WithTimeout(ctx, c.probeTimeout)
	defer cancel()
	status, b, err := c.tr.Probe(ctx, http.MethodPost, c.base+"/api/show", c.header, body)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		unknown.Reason = fmt.Sprintf("/api/show did not answer within %v", c.probeTimeout)
		return unknown
	case err != nil:
		unknown.Reason = "/api/show failed: " + err.Error()
		return unknown
	case status != http.StatusOK:
		unknown.Reason = fmt.Sprintf("/api/show answered %d %s", status, http.StatusText(status))
		return unknown
	}
	r, ok := llm.ReadOllamaShow(b)
	if !ok {
		unknown.Reason = "/api/show answered something other than model details"
		return unknown
	}
	return r
}

// Models implements [llm.Lister] with GET /api/tags.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	return c.tr.ModelNames(ctx, c.base+"/api/tags", c.header)
}

// Check implements [llm.Checker]: the server answers and has the
// configured model pulled ("llama3.2" matches "llama3.2:latest").
func (c *Client) Check(ctx context.Context) error {
	return llm.CheckListed(ctx, c, c.name, c.model, func(names []string) bool {
		return slices.Contains(names, c.model) || slices.Contains(names, c.model+":latest")
	}, func([]string) string {
		return fmt.Sprintf("model %q is not pulled on %s; run `ollama pull %s`", c.model, c.base, c.model)
	})
}
