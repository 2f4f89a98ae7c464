package server

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/observe"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/users"
)

// Runner runs agent turns and answers approvals: an [*agent.Runtime] in
// production, a fake in tests. Implementations are safe for concurrent use.
type Runner interface {
	// Run runs one turn and yields its events as [agent.Runtime.Run] does.
	// Cancelling ctx or breaking out of the range ends the run.
	// The server sets req.Permissions to the caller's tool permissions.
	Run(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error]
	// Decide answers a pending approval; an error wrapping
	// [agent.ErrNotPending] means it was already decided or expired.
	Decide(ctx context.Context, approvalID string, d agent.Decision) error
}

var _ Runner = (*agent.Runtime)(nil)

// Asker is a [Runner] that can ask a person to approve a call outside a
// run: the tools API uses it when the approval policy says ask. It stores
// the approval, waits for a decision (made through Decide), the approval
// timeout or the end of ctx, and returns the approval as it ended (an
// ended wait leaves it expired). A Runner without it cannot ask, and such
// calls are refused as unavailable.
type Asker interface {
	Ask(ctx context.Context, a store.Approval) (store.Approval, error)
}

var _ Asker = (*agent.Runtime)(nil)

// Catalog is the part of [*tools.Registry] the server uses: listing, and
// what the gate looks up and calls.
type Catalog interface {
	gate.Catalog
	List() []tools.Entry
}

var _ Catalog = (*tools.Registry)(nil)

// ServerStatus is one configured tool server as the status route shows it.
type ServerStatus struct {
	Name string `json:"name"`
	// Kind is "mcp", "openapi" or "builtin".
	Kind string `json:"kind"`
	// State is the supervisor's word: "starting", "ready", "failed", ...
	State     string    `json:"state"`
	Tools     int       `json:"tools"`
	Error     string    `json:"error,omitempty"`
	Restarts  int       `json:"restarts"`
	Since     time.Time `json:"since,omitzero"`
	Transport string    `json:"transport,omitempty"`
	// NonProtocolLines counts lines an MCP server wrote to stdout that were
	// not JSON-RPC (skipped; they are in its stderr tail, marked [stdout]).
	NonProtocolLines int64 `json:"nonProtocolLines,omitempty"`
	// Roots are the MCP roots offered to the server; absent means none.
	// RootsRequests counts how often the server asked for them.
	Roots         []string `json:"roots,omitempty"`
	RootsRequests int64    `json:"rootsRequests,omitempty"`
}

// ErrNoServer means a request named a tool server that is not configured.
var ErrNoServer = errors.New("no such tool server")

// Servers is the tool-server pool as the server routes need it; app fills
// it from mcphost and the OpenAPI servers. Implementations are safe for
// concurrent use.
type Servers interface {
	// Status lists every configured server, ordered by name.
	Status() []ServerStatus
	// Restart restarts the named server; an error wrapping [ErrNoServer]
	// means there is no such server.
	Restart(ctx context.Context, name string) error
	// Stderr returns the last lines the server wrote to stderr (nil for
	// servers without a process), and whether the server exists.
	Stderr(name string) ([]string, bool)
}

// Limits are per-user rate limits (token buckets). Zero fields mean the
// defaults in parentheses; a negative rate means no limit.
type Limits struct {
	// Requests per second on authenticated routes (20), burst (40). The
	// tool-call limit is the gate's (see [New]).
	Requests     float64
	RequestBurst int
}

func (l Limits) withDefaults() Limits {
	if l.Requests == 0 {
		l.Requests = 20
	}
	if l.RequestBurst <= 0 {
		l.RequestBurst = 40
	}
	return l
}

// Options configure a [Server]. A nil *Options, and every nil or zero
// field, means the default.
type Options struct {
	// Servers answers the /api/v1/servers routes; nil lists none.
	Servers Servers
	// Config answers the /api/v1/config routes (MCP servers and OpenAPI
	// services added at run time); nil answers 404.
	Config RuntimeConfig
	// Connections answers /api/v1/connections (each user's own credentials
	// for per-user upstreams); nil answers 404.
	Connections UserConnections
	// UpstreamAuth answers /api/v1/connections/{server}/authorize and
	// /api/v1/connections/oauth/callback (users signing in to per-user
	// remote servers); nil answers 404.
	UpstreamAuth UpstreamAuthorizer
	// Pins answers /api/v1/tools/changes (held tools and accepting them);
	// nil answers 404.
	Pins Pins
	// Features are the MCP servers' prompts, resources and completions,
	// served at /api/v1/prompts, /api/v1/resources and /api/v1/complete
	// and attachable to messages, under the gate's rules for them
	// ([gate.Offerings], shared with /mcp); nil answers 404.
	Features gate.Features
	// Models lists the configured model names (for /v1/models and the
	// readiness hint); nil means none.
	Models func() []string
	// ConfigProblems lists why the last edit of the config file was
	// refused (one problem each); /readyz shows them. nil, or a func
	// returning none, means the file as edited is what runs.
	ConfigProblems func() []string
	// MCP is the gateway handler mounted at /mcp behind authentication. The
	// authenticated user is on the request's context: read it with
	// [UserFrom] and hand it to the gateway. Nil answers 404.
	MCP http.Handler
	// Web serves the UI's pages and static files for GET requests not
	// matched by an API route; nil serves a short text page.
	Web http.Handler
	// Ping reports whether the store is reachable (for /readyz); nil lists
	// agents as a probe.
	Ping func(ctx context.Context) error

	// AllowAnonymous lets requests without a key act as the user "local"
	// with every permission, as long as no user exists: the moment one is
	// created (by any process sharing the store) every request needs a key.
	// Set it only for a loopback listener; see the package doc.
	AllowAnonymous bool
	// Users is the cached view of the users that authentication reads; nil
	// makes one over the store. The app shares one with the MCP gateway and
	// calls its Invalidate when the store announces a change.
	Users *users.Directory
	// PublicProbes lets /metrics and /readyz answer without a key while
	// users exist (for scrapers and orchestrators that cannot send one).
	// /healthz is always public: it says only "ok".
	PublicProbes bool
	// BodyReadTimeout bounds reading a request's body, so a client that
	// sends it slowly cannot hold a handler (slowloris); default 30s.
	BodyReadTimeout time.Duration
	// MaxStreams bounds each user's concurrent SSE streams (chat and run
	// streams); default 8, negative means no bound.
	MaxStreams int
	// AllowedHosts are accepted Host header values (host or host:port)
	// besides loopback names; empty accepts any Host unless AllowAnonymous.
	AllowedHosts []string
	// PublicURL is the server's public base URL (scheme://host[:port]),
	// the OAuth issuer and the base of the protected resources' names.
	// Empty derives it from the request only when its Host is loopback.
	PublicURL string
	// OAuth, when set, lets OAuth access tokens stand for their user on
	// /mcp and the REST API; nil accepts API keys only.
	OAuth OAuthTokens
	// SignIn, when set, offers sign-in through an OpenID provider
	// (/auth/login, /auth/callback, /auth/logout) and accepts the session
	// cookies it starts wherever a user is needed; nil accepts none.
	SignIn *SignIn
	// OAuthIssuer, set with OAuth, makes the server an OAuth 2.1
	// authorization server: /oauth/authorize, the consent API and
	// /oauth/token issue codes and tokens from it. Without it no OAuth
	// route or metadata is served.
	OAuthIssuer OAuthIssuer
	// ClientMetadata fetches client ID metadata documents; nil means an
	// [oauth.Fetcher] with the production rules (public addresses only).
	ClientMetadata ClientMetadataFetcher
	// RegistrationsPerMinute bounds POST /oauth/register per client IP
	// (default 10; negative means no bound).
	RegistrationsPerMinute int
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed to
	// make state-changing requests besides the server's own.
	AllowedOrigins []string
	// Limits are the per-user request limits.
	Limits Limits
	// RequestLimiter, when set, replaces the in-process token buckets of
	// Limits.Requests: several replicas share one count in the database
	// (see internal/store/postgres.Limiter). The tool-call limit is the
	// gate's.
	RequestLimiter gate.Limiter
	// MaxBodyBytes bounds JSON request bodies; default 4 MiB.
	MaxBodyBytes int64
	// UploadMaxBytes bounds one upload into a conversation; default
	// 10 MiB ([DefaultUploadMaxBytes]).
	UploadMaxBytes int64
	// UploadDir, when set, is where uploads are also written as files, in
	// a directory per conversation, for file tools (a directory inside the
	// roots, which app checks); the model is told each file's path. Empty
	// writes no files.
	UploadDir string
	// SSEWriteTimeout bounds one SSE write to a slow client; default 10s.
	SSEWriteTimeout time.Duration
	// KeepRunsOnLeave keeps a conversation's run going when its client
	// leaves, when RunLog is set, so that the
	// client can re-attach to it after a reload (GET
	// /api/v1/runs/{id}/events). False cancels the run when its client
	// leaves.
	KeepRunsOnLeave bool
	// RunLog keeps run events (for KeepRunsOnLeave and the
	// /api/v1/runs routes); nil keeps none, and runs end with their client.
	RunLog store.RunLog
	// Changes is the store's change feed: a watcher of a run learns of new
	// events from it, also those another replica writes; nil polls nothing
	// and re-attaching follows only this process's runs.
	Changes store.Changes
	// KeepAlive is the interval of SSE comments on quiet streams; default 15s.
	KeepAlive time.Duration

	// Tracing, when set, makes a span per request; nil makes none.
	Tracing *observe.Tracing
	// Metrics receives observations; nil creates one (see [Server.Metrics]).
	Metrics *observe.Metrics
	// Logger receives request logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}
