package mcphost

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Transport names how Switchboard talks to an MCP server.
type Transport string

const (
	// TransportAuto ("") tries Streamable HTTP and falls back to legacy
	// HTTP+SSE when the server answers the way pre-2025-03-26 servers do.
	TransportAuto  Transport = ""
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
	TransportSSE   Transport = "sse"
)

// ServerConfig describes one MCP server. The zero value of each optional
// field means its default.
type ServerConfig struct {
	// Name identifies the server in the pool, in logs and in tool origins.
	Name string
	// Transport is stdio when Command is set; otherwise "" means Streamable
	// HTTP with fallback to SSE.
	Transport Transport

	// Command, Args, Env and Dir start a stdio server. The server's
	// environment is a minimal base taken from Switchboard's (PATH, HOME,
	// USER, LOGNAME, SHELL, TERM, TZ, TMPDIR, LANG, LC_*), then the
	// variables matching InheritEnv globs, then Env.
	Command    string
	Args       []string
	Env        map[string]string
	Dir        string
	InheritEnv []string
	// Sandbox confines a stdio server by the kernel; nil starts it
	// unconfined. Either way it has a process group of its own and dies
	// with Switchboard (see package sandbox).
	Sandbox *sandbox.Policy

	// Roots are the file roots (paths or file:// URIs) offered to the
	// server when it asks (roots/list). Empty means the roots capability is
	// not advertised at all, so the server keeps the directories of its own
	// configuration.
	Roots []string

	// URL and Headers reach a remote server. Headers are sent on every request.
	URL     string
	Headers map[string]string
	// OAuth configures OAuth 2.1 for a remote server. When nil, OAuth is used
	// only if the server demands it (401 with resource metadata) and
	// [Options.OAuthRedirect] is set, with dynamic client registration.
	OAuth *OAuthConfig

	// CallTimeout bounds each tool call; 0 means 60s.
	CallTimeout time.Duration
	// ProtocolVersion pins the MCP protocol version; "" negotiates.
	ProtocolVersion string
	// Allow and Deny filter the server's tools by name with [path.Match]
	// globs. An empty Allow allows all; Deny wins over Allow.
	Allow, Deny []string
	// PerUser, when set, runs each user's calls on an instance of their
	// own with their own credentials; see [PerUserConfig].
	PerUser *PerUserConfig
	// ShutdownTimeout is how long a stdio server gets to exit after its stdin
	// is closed, and again after SIGTERM, before it is killed; 0 means 2s.
	ShutdownTimeout time.Duration
}

// OAuthConfig configures the OAuth 2.1 authorization-code flow (with PKCE)
// for a remote server. An empty ClientID means dynamic client registration.
// Grant [GrantClientCredentials] selects the machine-to-machine grant instead.
type OAuthConfig struct {
	// Grant is the OAuth grant used to get tokens: "" (the
	// authorization-code flow, with a person in a browser) or
	// [GrantClientCredentials].
	Grant        string
	ClientID     string
	ClientSecret string
	Scopes       []string
	// ClientMetadataURL is an HTTPS URL (with a path) where this client's
	// OAuth Client ID Metadata Document is published. When set and the
	// authorization server supports such documents, the URL is the client
	// id and no registration is needed; otherwise dynamic registration is
	// used as without it.
	ClientMetadataURL string
	// RedirectURL is where the authorization server sends the browser back;
	// "" means http://127.0.0.1:8976/callback.
	RedirectURL string
}

// Options configures a [Pool]. A nil *Options or a zero field means the default.
type Options struct {
	// Logger receives lifecycle logs; nil discards them.
	Logger *slog.Logger
	// DataDir holds persistent state: OAuth tokens go to DataDir/oauth/<server>.json
	// with mode 0600. "" keeps tokens in memory only.
	DataDir string
	// ConnectTimeout bounds each connect attempt (spawn or dial, handshake,
	// first tools/list); 0 means 30s.
	ConnectTimeout time.Duration
	// PingInterval is the health-check interval: a ping, or for protocol
	// 2026-07-28, which has no ping, a tools/list. 0 means 30s; negative
	// disables periodic checks (a call that fails below the protocol still
	// triggers one).
	PingInterval time.Duration
	// RestartBackoffInitial and RestartBackoffMax bound the exponential,
	// jittered delay between reconnect attempts; 0 means 500ms and 30s.
	RestartBackoffInitial time.Duration
	RestartBackoffMax     time.Duration
	// MaxRestarts failures within RestartWindow put a server in state failed,
	// where it stays until [Pool.Restart]; 0 means 5 and 5m.
	MaxRestarts   int
	RestartWindow time.Duration
	// StderrLines is how many lines of each stdio server's stderr are kept;
	// 0 means 200. Each line is cut at 1 KiB.
	StderrLines int

	// OnToolsChanged receives the full replacement tool set of one server
	// (after Allow/Deny), or nil when the server goes down. It is called from
	// the server's supervisor goroutine, so calls are serialised per server;
	// it must not block for long and must not call [Pool.Close].
	OnToolsChanged func(server string, ts []tools.Tool)
	// OnStatus receives every state change. Same calling rules as OnToolsChanged.
	OnStatus func(Status)

	// Sampling answers sampling/createMessage requests from servers; nil
	// means the capability is not advertised.
	Sampling func(ctx context.Context, server string, req *SamplingRequest) (*SamplingResult, error)
	// Elicitation answers elicitation/create requests from servers (req.Server
	// is server); nil means the capability is not advertised.
	Elicitation func(ctx context.Context, server string, req *tools.ElicitRequest) (*tools.ElicitResult, error)
	// OnElicitationComplete receives notifications/elicitation/complete: the
	// server's URL-mode elicitation id is done. Same calling rules as
	// OnResourceUpdated.
	OnElicitationComplete func(server, id string)
	// OnResourceUpdated receives notifications/resources/updated for
	// resources subscribed with [Pool.Subscribe]. Same calling rules as
	// OnToolsChanged, except that it runs on the connection's reader.
	OnResourceUpdated func(server, uri string)
	// OnFeaturesChanged receives the server's name when it sends
	// notifications/prompts/list_changed or resources/list_changed. Same
	// calling rules as OnResourceUpdated.
	OnFeaturesChanged func(server string)
	// MaxMessageBytes is the hard cap on one message read from a stdio
	// server; 0 means 256 MiB. A tools/call result over it is discarded with
	// a tool error that says so, and the server keeps running. Long texts
	// in a result do not count against memory: they stream into the call's
	// [tools.CallRequest].Output.
	MaxMessageBytes int64

	// OAuthRedirect performs the interactive step of OAuth: send the user
	// to authURL and return the full URL the authorization server redirected
	// the browser back to (the configured RedirectURL with code, state and
	// iss, or error). nil means a server that needs a new grant fails with
	// a hint to log in interactively; stored tokens are still used and refreshed.
	OAuthRedirect func(ctx context.Context, authURL string) (callbackURL string, err error)
	// UserCredential returns the value the user with store ID user ("" for
	// the local user) connected to the per-user server (see
	// [PerUserConfig]), or an error wrapping [ErrNoCredential] when they
	// have none. It is called on every call to a per-user server, so a
	// credential removed anywhere stops being used at once. nil means
	// per-user servers that need a value refuse every call.
	UserCredential func(ctx context.Context, server, user string) (string, error)
	// OAuthHTTPClient makes OAuth discovery, registration and token
	// requests. nil means the SDK's default, which refuses private and
	// loopback addresses during discovery (SSRF protection); set a client to
	// reach an authorization server on localhost.
	OAuthHTTPClient *http.Client
}

// Defaults, named so docs and tests agree.
const (
	DefaultCallTimeout     = 60 * time.Second
	DefaultShutdownTimeout = 2 * time.Second
	DefaultConnectTimeout  = 30 * time.Second
	DefaultPingInterval    = 30 * time.Second
	DefaultMaxRestarts     = 5
	DefaultRestartWindow   = 5 * time.Minute
	DefaultStderrLines     = 200
	DefaultMaxMessageBytes = 256 << 20
	maxStderrLineBytes     = 1024
)

// withDefaults returns a copy of o with every zero field set to its default.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.ConnectTimeout <= 0 {
		r.ConnectTimeout = DefaultConnectTimeout
	}
	if r.PingInterval == 0 {
		r.PingInterval = DefaultPingInterval
	}
	if r.RestartBackoffInitial <= 0 {
		r.RestartBackoffInitial = 500 * time.Millisecond
	}
	if r.RestartBackoffMax <= 0 {
		r.RestartBackoffMax = 30 * time.Second
	}
	if r.RestartBackoffMax < r.RestartBackoffInitial {
		r.RestartBackoffMax = r.RestartBackoffInitial
	}
	if r.MaxRestarts <= 0 {
		r.MaxRestarts = DefaultMaxRestarts
	}
	if r.RestartWindow <= 0 {
		r.RestartWindow = DefaultRestartWindow
	}
	if r.StderrLines <= 0 {
		r.StderrLines = DefaultStderrLines
	}
	if r.MaxMessageBytes <= 0 {
		r.MaxMessageBytes = DefaultMaxMessageBytes
	}
	// A message that fits in the line buffer is always read.
	r.MaxMessageBytes = max(r.MaxMessageBytes, stdio.ReadBufSize)
	return r
}

func (sc *ServerConfig) callTimeout() time.Duration {
	if sc.CallTimeout > 0 {
		return sc.CallTimeout
	}
	return DefaultCallTimeout
}

func (sc *ServerConfig) shutdownTimeout() time.Duration {
	if sc.ShutdownTimeout > 0 {
		return sc.ShutdownTimeout
	}
	return DefaultShutdownTimeout
}

// transport resolves the effective transport: stdio when a command is set.
func (sc *ServerConfig) transport() Transport {
	if sc.Transport == TransportAuto && sc.Command != "" {
		return TransportStdio
	}
	return sc.Transport
}
