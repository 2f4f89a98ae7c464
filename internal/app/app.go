package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi"
)

// Options tune how an [App] is built. A nil *Options means defaults.
type Options struct {
	// Logger receives every part's logs; nil discards them.
	Logger *slog.Logger
	// Only, when non-nil, starts just these MCP and OpenAPI servers (by
	// name); the others are reported as not started. `switchboard call
	// files__read` uses it to start one server instead of all.
	Only []string
	// OAuthRedirect completes the browser step of OAuth for remote MCP
	// servers; nil makes such servers fail with a hint.
	OAuthRedirect func(ctx context.Context, authURL string) (callbackURL string, err error)
	// OAuthHTTPClient talks to authorization servers; nil means go-sdk's
	// default, which refuses private and loopback addresses. Tests set it.
	OAuthHTTPClient *http.Client
	// Reload, when set, reads and validates the configuration again as
	// the process did at start (file, environment, flags). Serve then
	// follows the config file and SIGHUP, applying each valid edit with
	// [App.Reload]; nil keeps the configuration of New.
	Reload func() (*config.Config, error)
}

// App is a running Switchboard: its catalogue and the servers behind it.
// Build it with [New], then [App.Start]; [App.Close] stops everything.
type App struct {
	// featureChanges tells gateways that a server's prompts or resources
	// changed (gateway_features.go).
	featureChanges featureChanges
	// cfg is the configuration the app was built from: what can change
	// only with a new process (data directory, database, listen address)
	// is read here. live is the configuration last applied (see
	// [App.Reload]); entries that a reload applies are read there.
	cfg  *config.Config
	live atomic.Pointer[config.Config]
	// file is the configuration as the file gave it, without the entries
	// added at run time; entries is the runtime configuration.
	file    atomic.Pointer[config.Config]
	entries *entries
	only    []string                       // Options.Only
	load    func() (*config.Config, error) // Options.Reload
	logger  *slog.Logger

	registry *tools.Registry
	pool     *mcphost.Pool
	// openapiMu guards openapi, which a reload replaces.
	openapiMu sync.Mutex
	openapi   []*openapi.Server // sorted by name

	// reloadMu serialises reloads; problems holds why the last edit of the
	// file was refused, nil once one is applied.
	reloadMu sync.Mutex
	problems atomic.Pointer[[]string]

	// secrets hides the configuration's secret values in the status texts
	// (errors, servers' stderr) that Servers shows.
	secrets *redact.Secrets

	// protected is Switchboard's own files, which no tool may reach
	// (internal/protect); closed by Close.
	protected *protect.Set

	// builtinErr is why the built-in tools are missing, if they are.
	builtinErr error

	// modelsMu guards models, built on first use by Models and rebuilt
	// by a reload for the entries it changes.
	modelsMu sync.Mutex
	models   []Model
	modelsOK bool

	// storeMu guards store, shared and storeClosed: Store opens the database on
	// first use, a failed open is tried again by the next caller, and Close
	// closes what was opened, once.
	storeMu     sync.Mutex
	store       store.Store
	shared      *replicas // what the store offers replicas; nil for SQLite
	storeClosed bool

	runtimeOnce sync.Once
	runtime     *agent.Runtime // built on first use by Runtime

	gateOnce sync.Once
	gate     *gate.Gate // built on first use by Gate
	// gateBuilt and runtimeBuilt publish the gate and the runtime once
	// built, for a reload to apply its policies to without building them.
	gateBuilt    atomic.Pointer[gate.Gate]
	runtimeBuilt atomic.Pointer[agent.Runtime]
	// toolCalls and requests are the rate limits the gate and the HTTP
	// server hold; a reload replaces what they count (applyPolicies).
	toolCalls, requests liveLimiter
	// search holds what tool ranking adds to the catalogue: server
	// instructions and optional embeddings.
	search toolSearch

	oauthClient *http.Client

	// svc is the running service while Serve runs, nil otherwise: the
	// hooks of the parts built here (tools, models, the gate, the pool)
	// observe through its metrics and tracing, so one-shot commands build
	// no registry they would never serve.
	svc atomic.Pointer[service]

	// started is set by the first Start: a second, Serve's after the
	// command line's, returns at once.
	started atomic.Bool

	// sweepEvery, when set (by tests), replaces SweepInterval.
	sweepEvery time.Duration

	closeOnce sync.Once
	closeErr  error
}

// New builds every part from cfg without starting anything that does I/O.
// cfg must have passed Validate.
func New(cfg *config.Config, opts *Options) (*App, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &App{cfg: cfg, only: o.Only, load: o.Reload, logger: logger, oauthClient: o.OAuthHTTPClient, secrets: redact.NewSecrets(cfg.SecretValues()...)}
	a.live.Store(cfg)
	a.file.Store(cfg)
	a.entries = &entries{a: a}
	prot, err := protect.New(protectedItems(cfg))
	if err != nil {
		return nil, err
	}
	a.protected = prot
	// Before any tool can write: a config discovered later in these
	// directories needs the person's trust (see config.Config.Trust).
	if err := cfg.RecordWritable(writableDirs(cfg)); err != nil {
		logger.Warn("tool roots not recorded; a config file a tool writes there may be loaded later", logKeyErr, err)
	}
	a.registry = tools.NewRegistry(&tools.RegistryOptions{
		ResultLimit: cfg.Results.MaxBytes,
		OutputDir:   a.outputDir(),
		Logger:      logger.With(logKeyComponent, "registry"),
		Pinner:      a.pinner(),
	})

	bt, err := builtin.New(&builtin.Options{
		Roots:             cfg.Builtin.Roots,
		Disabled:          cfg.Builtin.Disabled,
		MaxReadBytes:      cfg.Builtin.ReadFile.MaxBytes,
		TerminalTimeout:   cfg.Builtin.Terminal.Timeout,
		TerminalMaxOutput: cfg.Builtin.Terminal.MaxOutput,
		OutputDir:         a.outputDir(),
		Uploads:           uploadSource{a},

		TerminalSandbox:    cfg.Builtin.Terminal.Sandbox,
		TerminalPolicy:     a.protectTerminal(terminalPolicy(cfg)),
		Protected:          a.protected,
		TerminalInheritEnv: cfg.Builtin.Terminal.InheritEnv,
	})
	if err != nil {
		// A bad root must not take the MCP servers down with it: report it
		// as the built-in source's failure and carry on.
		a.builtinErr = fmt.Errorf("built-in tools: %w", err)
		logger.Warn("built-in tools unavailable", logKeyErr, err)
	} else {
		a.registry.Set(tools.Source{Kind: tools.KindBuiltin}, a.observe(tools.KindBuiltin, gate.BuiltinServer, bt))
	}

	a.pool = mcphost.NewPool(a.protectServers(mcpServers(cfg, o.Only)), &mcphost.Options{
		Logger:  logger.With(logKeyComponent, "mcphost"),
		DataDir: cfg.Data,
		OnToolsChanged: func(server string, ts []tools.Tool) {
			a.registry.Set(tools.Source{Kind: tools.KindMCP, Server: server}, a.observe(tools.KindMCP, server, ts))
		},
		MaxMessageBytes: cfg.Results.MaxMessageBytes,
		OAuthRedirect:   o.OAuthRedirect,
		OAuthHTTPClient: o.OAuthHTTPClient,
		// Servers may ask for a completion or for the user's input; both
		// go through the agent runtime and its approval path.
		Sampling:              a.sample,
		Elicitation:           a.elicit,
		OnElicitationComplete: a.elicitationComplete,
		OnStatus:              a.statusChanged,
		// Per-user servers read each caller's own credential, per call.
		UserCredential: userCreds{a: a}.lookup,
		// The gateway tells its clients (gateway_features.go).
		OnFeaturesChanged: func(string) { a.featureChanges.signal() },
	})

	for _, name := range slices.Sorted(maps.Keys(cfg.OpenAPIServers)) {
		sc := cfg.OpenAPIServers[name]
		if sc.Disabled || !selected(o.Only, name) {
			continue
		}
		a.openapi = append(a.openapi, a.newOpenAPI(name, sc))
	}
	return a, nil
}

// newOpenAPI builds the client of one OpenAPI service. Its tools reach the
// registry only while it is one of the app's services: one that a reload
// removed publishes nothing more.
func (a *App) newOpenAPI(name string, sc config.OpenAPIServer) *openapi.Server {
	return openapi.New(name, &openapi.Options{
		// A per-user service sends each caller's own credential.
		UserHeader: a.openapiUserHeader(name, sc),

		URL:     sc.URL,
		Spec:    sc.Spec,
		Bearer:  sc.Bearer.Value(),
		Headers: sc.Headers,
		Allow:   sc.Operations.Allow,
		Deny:    sc.Operations.Deny,
		Timeout: sc.Timeout,
		TTL:     sc.TTL,
		Logger:  a.logger.With(logKeyComponent, "openapi", logKeyServer, name),
		OnChange: func(s *openapi.Server) {
			a.openapiMu.Lock()
			defer a.openapiMu.Unlock()
			if slices.Contains(a.openapi, s) {
				a.registry.Set(tools.Source{Kind: tools.KindOpenAPI, Server: name}, a.observe(tools.KindOpenAPI, name, s.Tools()))
			}
		},
	})
}

// openapiServers returns the current OpenAPI services.
func (a *App) openapiServers() []*openapi.Server {
	a.openapiMu.Lock()
	defer a.openapiMu.Unlock()
	return slices.Clone(a.openapi)
}

// config returns the configuration last applied.
func (a *App) config() *config.Config { return a.live.Load() }

// outputDir is where oversized tool outputs are kept for read_tool_output.
func (a *App) outputDir() string {
	if a.cfg.Data == "" {
		return ""
	}
	return filepath.Join(a.cfg.Data, "tool-output")
}

// Start connects every MCP server and reads every OpenAPI document, all
// concurrently. It returns when each has become ready or failed its first
// attempt, so start-up takes as long as the slowest server. A server that
// fails is reported by [App.Servers]; Start itself fails only when ctx ends.
// Start runs once: [App.Serve] calls it, and returns at once when the
// command line called it before.
func (a *App) Start(ctx context.Context) error {
	if !a.started.CompareAndSwap(false, true) {
		return ctx.Err()
	}
	var wg sync.WaitGroup
	wg.Go(func() { a.pool.Start(ctx) })
	for _, s := range a.openapiServers() {
		wg.Go(func() {
			if err := s.Load(ctx); err != nil {
				a.logger.Warn("openapi server unavailable", logKeyServer, s.Name(), logKeyErr, err)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// RefreshOpenAPI re-reads the OpenAPI documents now (`tools --refresh`).
// The returned error joins the failures; the other servers are refreshed.
func (a *App) RefreshOpenAPI(ctx context.Context) error {
	servers := a.openapiServers()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { errs[i] = s.Refresh(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Registry returns the catalogue.
func (a *App) Registry() *tools.Registry { return a.registry }

// Config returns the configuration last applied: the one the app was
// built from until a reload applies another.
func (a *App) Config() *config.Config { return a.config() }

// Close stops every part in order: the MCP servers and their processes
// (which ends tool calls still running, so their audit records complete),
// then the database. Runs must have been cancelled by the caller first.
// Close is idempotent and safe for concurrent use.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		err := a.pool.Close()
		// Store may be opening concurrently: the lock waits for it.
		a.storeMu.Lock()
		a.storeClosed = true
		if a.store != nil {
			err = errors.Join(err, a.store.Close())
		}
		a.storeMu.Unlock()
		err = errors.Join(err, a.protected.Close())
		a.closeErr = err
	})
	return a.closeErr
}

func selected(only []string, name string) bool {
	return only == nil || slices.Contains(only, name)
}

// BuiltinNames lists every built-in tool name, enabled or not.
func BuiltinNames() []string { return builtin.Names() }

// ServerReport is the doctor's report on one MCP server.
type ServerReport = mcphost.Report

// Diagnose runs the doctor's checks on every enabled MCP server (those in
// only, when non-nil), concurrently, in name order. It starts its own
// processes and leaves none behind; it does not need Start.
func (a *App) Diagnose(ctx context.Context, only []string) []*ServerReport {
	servers := a.protectServers(mcpServers(a.config(), only))
	out := make([]*ServerReport, len(servers))
	var wg sync.WaitGroup
	for i, sc := range servers {
		wg.Go(func() {
			out[i] = mcphost.Diagnose(ctx, sc, &mcphost.Options{Logger: a.logger, DataDir: a.cfg.Data, MaxMessageBytes: a.cfg.Results.MaxMessageBytes})
		})
	}
	wg.Wait()
	return out
}

// statusChanged counts an MCP server's state change in the running
// service's metrics.
func (a *App) statusChanged(st mcphost.Status) {
	if s := a.svc.Load(); s != nil {
		s.serverStatus(st)
	}
}
