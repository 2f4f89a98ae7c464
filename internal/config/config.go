package config

import (
	"path"
	"path/filepath"
	"time"
)

// Config is the whole configuration of Switchboard. JSON and YAML keys are
// the json tags below. The zero value is not useful; start from [Default] or
// [Load]. A Config is a plain value: it is safe for concurrent reads, and
// callers that change fields (flags) call [Config.Validate] again afterwards.
type Config struct {
	// Source is the file Load read, or "" when no file was found and only
	// defaults and the environment apply.
	Source string `json:"-"`
	// Candidates are the files discovery tries, in order, whether they
	// exist or not (see [Find]): Switchboard protects them from tools,
	// since a tool that wrote one would choose the next configuration.
	Candidates []string `json:"-"`
	// TrustDirs are where the records of discovered config files the
	// person accepted, and of the directories tools may write, are read
	// (see [Config.Trust]); they never come from the file itself.
	TrustDirs []string `json:"-"`
	// SecretKey seals the secrets of configuration entries added at run
	// time (base64 of 32 bytes, from SWITCHBOARD_SECRET_KEY); empty means a
	// key file in the data directory. It never comes from the file.
	SecretKey Secret `json:"-"`

	MCPServers map[string]MCPServer `json:"mcpServers"`
	// MCPRoots are the roots (directories or file:// URIs) offered to
	// every MCP server that has no roots of its own. Empty (the default):
	// no roots are offered, and servers keep their own configuration.
	MCPRoots       []string                 `json:"mcpRoots"`
	OpenAPIServers map[string]OpenAPIServer `json:"openapiServers"`
	Builtin        Builtin                  `json:"builtin"`
	Results        Results                  `json:"results"`
	Models         map[string]Model         `json:"models"`
	// DefaultModel names an entry of Models. Load fills it when empty: the
	// model named "default" if there is one, else the only model.
	DefaultModel string           `json:"defaultModel"`
	Agents       map[string]Agent `json:"agents"`
	Assistant    Assistant        `json:"assistant"`
	Approvals    Approvals        `json:"approvals"`
	Limits       Limits           `json:"limits"`
	Server       Server           `json:"server"`
	RateLimits   RateLimits       `json:"rateLimits"`
	Log          Log              `json:"log"`
	// Data is the data directory (SQLite database, tool output spills).
	Data string `json:"data"`
	// Database is where conversations, approvals and the audit live.
	Database Database `json:"database,omitempty"`
	// Tracing sends OpenTelemetry traces; OTEL_EXPORTER_OTLP_ENDPOINT sets it.
	Tracing Tracing `json:"tracing,omitempty"`
	// Sandbox is the default sandbox of stdio MCP servers that do not set
	// their own (default: none).
	Sandbox Sandbox `json:"sandbox"`
	// ToolSearch sets how many tools a model is offered at once, and the
	// optional embeddings that help rank them.
	ToolSearch ToolSearch `json:"toolSearch"`
	// Auth configures sign-in for people (OpenID Connect) and sessions.
	Auth Auth `json:"auth"`
	// Context sets how conversations longer than a model's window are
	// kept going (the model that summarises them).
	Context Context `json:"context"`
	// Uploads bounds the files people upload into conversations and says
	// where tools find them as files.
	Uploads Uploads `json:"uploads"`

	// unset lists ${VAR} references whose variable was not set, so that
	// Validate can name them.
	unset []unsetVar
	// secretPaths holds the field paths whose value came from a variable
	// with a secret-looking name; WriteEffective redacts them.
	secretPaths map[string]bool
}

// Transport is how Switchboard reaches an MCP server, derived from
// [MCPServer.Type], Command and URL by [MCPServer.Transport].
type Transport string

const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
	TransportSSE   Transport = "sse"
	// TransportAuto is a url without a type: try Streamable HTTP first and
	// fall back to the legacy HTTP+SSE transport.
	TransportAuto Transport = "auto"
)

// MCPServer is one entry of mcpServers, in the format Claude Desktop and
// Cursor use, plus Switchboard's own optional keys.
type MCPServer struct {
	// Type is stdio, http or sse; streamable-http, streamableHttp and
	// streamable_http mean http. Empty: inferred, see [MCPServer.Transport].
	Type string `json:"type,omitempty"`

	// Stdio servers.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	// Remote servers.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	OAuth   *OAuth            `json:"oauth,omitempty"`

	Disabled bool `json:"disabled,omitempty"`
	// Timeout bounds one tool call (default 60s).
	Timeout time.Duration `json:"timeout"`
	// ShutdownTimeout is how long a stdio server may take to exit after its
	// stdin is closed before it is signalled (default 2s).
	ShutdownTimeout time.Duration `json:"shutdownTimeout"`
	// ProtocolVersion pins the MCP protocol version; empty negotiates.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Tools filters which of the server's tools join the catalogue.
	Tools Filter `json:"tools,omitempty"`
	// Roots are the directories (or file:// URIs) offered to the server
	// as MCP roots when it asks. nil (key absent) means the global
	// MCPRoots; an empty list means none: the roots capability is then not
	// advertised, so a server such as server-filesystem keeps the
	// directories of its own arguments.
	Roots []string `json:"roots"`
	// Sandbox confines a stdio server; nil means the top-level default.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// InheritEnv lists globs of Switchboard's environment variables a
	// stdio server gets besides the minimal base and Env.
	InheritEnv []string `json:"inheritEnv,omitempty"`
	// Pinning is what happens when the server changes a tool's definition:
	// hold (the default; see [PinningHold]) or auto ([PinningAuto]).
	Pinning string `json:"pinning,omitempty"`
	// Credentials is shared (the default) or perUser; PerUser details it.
	// See [PerUserOf].
	Credentials string   `json:"credentials,omitempty"`
	PerUser     *PerUser `json:"perUser,omitempty"`
}

// Pinning values of a server.
const (
	// PinningHold holds a tool whose definition changed since it was
	// accepted until an admin accepts the change (the default, also "").
	PinningHold = "hold"
	// PinningAuto accepts a server's changed definitions on sight, audited;
	// for servers whose changes are trusted (one's own, under development).
	PinningAuto = "auto"
)

// Sandbox confines a stdio MCP server by the kernel. In a file it is
// `true`, `false`, or a mapping of the fields below, which means true.
type Sandbox struct {
	// Enabled is the boolean form; a mapping sets it.
	Enabled bool `json:"-"`
	// Read adds paths the server may read (and execute) to the system's
	// program locations, the roots and its cwd.
	Read []string `json:"read,omitempty"`
	// Write lists the paths the server may write; absent means the roots,
	// [] means none.
	Write []string `json:"write,omitempty"`
	// Network allows network access (default: none).
	Network bool `json:"network,omitempty"`
	// Limits bound the server's resources; zero fields take the defaults.
	Limits SandboxLimits `json:"limits,omitempty"`
}

// SandboxLimits bound a sandboxed command's resources. A zero field means
// the default: 1024 processes and threads, 4096 open files, 8 GiB of
// memory, no CPU time limit.
type SandboxLimits struct {
	Processes int           `json:"processes,omitempty"`
	OpenFiles int           `json:"openFiles,omitempty"`
	CPUTime   time.Duration `json:"cpuTime,omitempty"`
	// Memory is in bytes (RLIMIT_DATA: heap and private writable memory).
	Memory int64 `json:"memory,omitempty"`
}

// Transport reports how to reach s: the normalised Type, or when Type is
// empty TransportStdio for a command and TransportAuto for a url. It returns
// "" for an unknown Type or a server with neither command nor url.
func (s MCPServer) Transport() Transport {
	switch s.Type {
	case "stdio":
		return TransportStdio
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		return TransportHTTP
	case "sse":
		return TransportSSE
	case "":
		switch {
		case s.Command != "":
			return TransportStdio
		case s.URL != "":
			return TransportAuto
		}
	}
	return ""
}

// OAuth configures the OAuth client for a remote MCP server.
type OAuth struct {
	// Grant is how tokens are obtained: "" or "authorization_code" (a
	// person logs in in a browser, `switchboard mcp login`) or
	// "client_credentials" (Switchboard is the client, with clientId and
	// clientSecret; no person involved).
	Grant        string   `json:"grant,omitempty"`
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret Secret   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	RedirectURL  string   `json:"redirectURL,omitempty"`
	// ClientMetadataURL is where this client's OAuth Client ID Metadata
	// Document is published (an https URL with a path); servers that
	// support such documents then need no registration.
	ClientMetadataURL string `json:"clientMetadataURL,omitempty"`
}

// Filter selects names with path.Match globs: a name passes when Allow is
// empty or one of its globs matches, and no Deny glob matches.
type Filter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Allows reports whether name passes f. Malformed globs match nothing;
// Validate rejects them.
func (f Filter) Allows(name string) bool {
	for _, g := range f.Deny {
		if ok, _ := path.Match(g, name); ok {
			return false
		}
	}
	if len(f.Allow) == 0 {
		return true
	}
	for _, g := range f.Allow {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// OpenAPIServer is an HTTP service whose OpenAPI 3 operations become tools.
type OpenAPIServer struct {
	// URL is the base URL operations are called on.
	URL string `json:"url"`
	// Spec is the OpenAPI document: a URL or a file path. Empty: discovered
	// under URL (/openapi.json, /, /api/openapi.json, /docs/openapi.json).
	Spec       string            `json:"spec,omitempty"`
	Bearer     Secret            `json:"bearer,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Operations Filter            `json:"operations,omitempty"`
	Disabled   bool              `json:"disabled,omitempty"`
	// Timeout bounds one operation call (default 60s).
	Timeout time.Duration `json:"timeout"`
	// TTL is how long the fetched document is reused before it is fetched
	// again; 0 (the default) fetches it once at start.
	TTL time.Duration `json:"ttl"`
	// Pinning is hold (the default) or auto, as for [MCPServer].
	Pinning string `json:"pinning,omitempty"`
	// Credentials and PerUser are as for [MCPServer]: with perUser each
	// user's calls carry their own value in PerUser.Header instead of Bearer.
	Credentials string   `json:"credentials,omitempty"`
	PerUser     *PerUser `json:"perUser,omitempty"`
}

// Builtin configures the built-in tools.
type Builtin struct {
	// Roots confine the file tools. Load resolves relative roots against the
	// config file's directory and defaults to the working directory.
	Roots []string `json:"roots"`
	// Disabled lists built-in tool names to leave out of the catalogue.
	Disabled []string `json:"disabled"`
	Terminal Terminal `json:"terminal"`
	ReadFile ReadFile `json:"readFile"`
}

// Terminal configures the terminal tool.
type Terminal struct {
	Timeout   time.Duration `json:"timeout"`
	MaxOutput int           `json:"maxOutput"`
	// Sandbox is auto (confined where the kernel supports it, the
	// default), required (refuse to run unconfined) or off.
	Sandbox string `json:"sandbox"`
	// Network lets sandboxed commands reach the network (default false).
	Network bool `json:"network"`
	// InheritEnv lists globs of Switchboard's environment variables the
	// commands get besides the minimal base.
	InheritEnv []string `json:"inheritEnv,omitempty"`
	// Limits bound each command's resources when sandboxed.
	Limits SandboxLimits `json:"limits,omitempty"`
}

// ReadFile configures the read_file tool.
type ReadFile struct {
	MaxBytes int64 `json:"maxBytes"`
}

// Results bounds the tool result text a model sees, and what is read at all.
type Results struct {
	MaxBytes int `json:"maxBytes"`
	// MaxMessageBytes is the hard cap on one message read from a stdio MCP
	// server: a tool result over it is discarded with a tool error. Below
	// it, long texts stream to the data directory and cost little memory.
	MaxMessageBytes int64 `json:"maxMessageBytes"`
}

// Model is one language model endpoint.
type Model struct {
	Provider string `json:"provider"`
	// BaseURL overrides the provider's endpoint; empty means its default.
	BaseURL string `json:"baseURL,omitempty"`
	// Model is the provider's model id.
	Model  string `json:"model"`
	APIKey Secret `json:"apiKey,omitempty"`
	// ToolMode is native, text or auto. auto asks the endpoint whether the
	// model takes tools (docs/PROVIDERS.md, "How toolMode auto decides");
	// native and text are never overridden.
	ToolMode string `json:"toolMode"`
	// ContextWindow and MaxTokens: 0 means the provider's default.
	ContextWindow int `json:"contextWindow,omitempty"`
	MaxTokens     int `json:"maxTokens,omitempty"`
	// Temperature: nil means the provider's default.
	Temperature *float64          `json:"temperature,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	// Timeout bounds one provider request (default 5m).
	Timeout time.Duration `json:"timeout"`
}

// Agent is a named agent with its own model, prompt and tool servers.
type Agent struct {
	Description string `json:"description,omitempty"`
	// Model names an entry of Config.Models; empty means DefaultModel.
	Model  string `json:"model,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Servers names mcpServers, openapiServers or "builtin". nil (key
	// absent) means every server; an empty list means no tools.
	Servers []string `json:"servers"`
	Router  string   `json:"router"`
	// Context overrides the global context settings for this agent.
	Context Context `json:"context"`
}

// Assistant is the default conversational agent that hands work to named
// agents on @name.
type Assistant struct {
	// Model names an entry of Config.Models; empty means DefaultModel.
	Model  string `json:"model,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	Router string `json:"router"`
}

// Approvals decides which tool calls need a person's approval.
type Approvals struct {
	Mode        string        `json:"mode"`
	ReadOnly    string        `json:"readOnly"`
	Destructive string        `json:"destructive"`
	Unannotated string        `json:"unannotated"`
	Timeout     time.Duration `json:"timeout"`
	// Rules are checked in order; the first match wins over the annotation
	// defaults above.
	Rules []Rule `json:"rules"`
}

// Rule sets the policy for tools whose server and tool name match the globs
// (an empty glob matches everything). Built-in tools have server "builtin".
type Rule struct {
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Policy string `json:"policy"`
}

// Limits bound the agent loop.
type Limits struct {
	ToolCallsPerTurn  int           `json:"toolCallsPerTurn"`
	ParallelToolCalls int           `json:"parallelToolCalls"`
	CallTimeout       time.Duration `json:"callTimeout"`
	TurnTimeout       time.Duration `json:"turnTimeout"`
}

// Server configures the HTTP server.
type Server struct {
	Addr string `json:"addr"`
	// PublicURL is the URL clients reach the server at (scheme://host
	// [:port], https unless loopback): the OAuth issuer, and the base of
	// the resources /mcp and the REST API name in their OAuth metadata.
	// Empty derives it from requests whose Host is loopback only.
	PublicURL      string   `json:"publicURL,omitempty"`
	AllowedOrigins []string `json:"allowedOrigins"`
	// PublicProbes lets /metrics and /readyz answer without an API key
	// once users exist (default false: they need a key, like the API).
	// /healthz is always public.
	PublicProbes bool `json:"publicProbes"`
	// BodyReadTimeout bounds reading one request body (default 30s).
	BodyReadTimeout time.Duration `json:"bodyReadTimeout"`
	// MaxStreamsPerUser bounds each user's open SSE chat and run streams
	// (default 8).
	MaxStreamsPerUser int `json:"maxStreamsPerUser"`
	// MCPSessionIdle ends a /mcp session (protocol before 2026-07-28) that
	// received no request for this long; clients that never send DELETE
	// would otherwise keep it forever. Default 30m.
	MCPSessionIdle time.Duration `json:"mcpSessionIdle"`
	// MCPSessionsPerUser caps the /mcp sessions one user may have open at
	// once; past it, a new session is refused with 429. Default 64.
	MCPSessionsPerUser int `json:"mcpSessionsPerUser"`
	// MCPSessionKey signs /mcp session IDs. Replicas behind one load
	// balancer given the same key (16 characters or more) continue each
	// other's sessions without sticky routing; empty means a random key
	// per process, and sessions stay on the replica that created them.
	MCPSessionKey Secret `json:"mcpSessionKey,omitempty"`
	// GCPercent is the garbage collector's target (as GOGC) while serving:
	// a heap may grow this many percent over the live data before a
	// collection. Default 200, which halves the collector's CPU against
	// Go's 100 at the price of a larger heap, bounded by MemoryLimitMB;
	// -1 leaves the runtime's setting (GOGC).
	GCPercent int `json:"gcPercent"`
	// MemoryLimitMB is the soft memory limit (as GOMEMLIMIT) while serving,
	// in MiB: the collector works harder as the heap nears it. Default
	// 1024; 0 means no limit, -1 leaves the runtime's setting (GOMEMLIMIT).
	MemoryLimitMB int64 `json:"memoryLimitMB"`
}

// Defaults of [Server]'s gateway and runtime settings.
const (
	DefaultMCPSessionIdle     = 30 * time.Minute
	DefaultMCPSessionsPerUser = 64
	DefaultGCPercent          = 400
	DefaultMemoryLimitMB      = 1024
)

// RateLimits per API key; 0 means unlimited.
type RateLimits struct {
	RequestsPerMinute  int `json:"requestsPerMinute"`
	ToolCallsPerMinute int `json:"toolCallsPerMinute"`
}

// Log configures logging.
type Log struct {
	// Level is debug, info, warn or error; empty leaves it to the command:
	// warn for one-shot commands, info for serve.
	Level  string `json:"level"`
	Format string `json:"format"`
}

// Database chooses the store. An empty URL means SQLite in the data
// directory (the embedded default); a postgres:// or postgresql:// URL means
// PostgreSQL, which several replicas can share.
type Database struct {
	URL string `json:"url,omitempty"`
}

// SQLitePath is the embedded database file inside the data directory.
func (c *Config) SQLitePath() string { return filepath.Join(c.Data, "switchboard.db") }

// Tracing configures OpenTelemetry traces (HTTP requests, tool calls, model
// requests) sent over OTLP/HTTP. An empty Endpoint sends none.
type Tracing struct {
	Endpoint string `json:"endpoint,omitempty"`
}
