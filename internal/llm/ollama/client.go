package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

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
}

var (
	_ llm.Provider    = (*Client)(nil)
	_ llm.Generator   = (*Client)(nil)
	_ llm.Checker     = (*Client)(nil)
	_ llm.Lister      = (*Client)(nil)
	_ llm.ToolSupport = (*Client)(nil)
)

// New returns a Client. opts nil means defaults; opts is copied. It fails
// only when Host cannot be read.
func New(opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Client{model: o.Model, name: o.Name, numCtx: o.NumCtx, keepAlive: o.KeepAlive}
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

// SupportsTools implements [llm.ToolSupport] with POST /api/show: the
// model's capabilities list "tools". Servers older than the capabilities
// field are answered from the chat template, which mentions .Tools when the
// model takes tools.
func (c *Client) SupportsTools(ctx context.Context, model string) (bool, error) {
	if model == "" {
		model = c.model
	}
	body, err := json.Marshal(map[string]string{"model": model})
	if err != nil {
		return false, fmt.Errorf("%s: encoding show request: %w", c.name, err)
	}
	b, err := c.tr.Fetch(ctx, http.MethodPost, c.base+"/api/show", c.header, body, "model details")
	if err != nil {
		return false, err
	}
	var show struct {
		Capabilities []string `json:"capabilities"`
		Template     string   `json:"template"`
	}
	if err := json.Unmarshal(b, &show); err != nil {
		return false, llm.MalformedError(c.name, "model details", err)
	}
	if show.Capabilities != nil {
		return slices.Contains(show.Capabilities, "tools"), nil
	}
	return strings.Contains(show.Template, ".Tools"), nil
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
