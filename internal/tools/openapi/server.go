package openapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Defaults for [Options].
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 1 << 20
)

// Options configures a [Server]. A nil or zero Options means defaults; New
// copies it, so later changes have no effect.
type Options struct {
	// URL is the action server's base URL; calls and discovery are relative
	// to it. It may be empty when Spec is a URL or a document whose first
	// servers entry is an absolute URL.
	URL string
	// Spec is an explicit document URL (http or https) or local file path;
	// "" means discover it under URL (see [Server.Load]).
	Spec string
	// Bearer, when set, is sent as "Authorization: Bearer <token>" on every
	// request to the server, the document fetch included.
	Bearer string
	// Headers are extra headers sent on every request (API keys and other
	// authentication schemes). They are set after Bearer, so an explicit
	// Authorization header wins.
	Headers map[string]string
	// UserHeader, when set, makes the service per-user: each call gets the
	// header it returns for the user ctx acts for, over Bearer and Headers
	// (which then serve only the document fetch). An error is the call's
	// tool error, shown as it is, and nothing is sent: it should name the
	// service and where the user connects their credential.
	UserHeader func(ctx context.Context) (name, value string, err error)
	// Allow and Deny are path.Match globs over tool names (the operationId,
	// or the derived method_path name). An empty Allow allows everything;
	// Deny wins over Allow.
	Allow, Deny []string
	// Timeout bounds one call, and one document fetch; 0 means DefaultTimeout.
	Timeout time.Duration
	// TTL is how old the document may get before the next use re-reads it
	// (see [Server.Sync]); 0 means never automatically.
	TTL time.Duration
	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Logger receives load and refresh events; nil discards them.
	Logger *slog.Logger
	// MaxResponseBytes is how much of a response body is read; 0 means
	// DefaultMaxResponseBytes. Longer bodies are cut with a note.
	MaxResponseBytes int64
	// OnChange, when set, is called with the Server after a load changed its
	// state or its tools, with the Server's lock released, from the goroutine
	// that triggered the load (Load, Refresh, Sync or a tool call). It should
	// read [Server.Tools] and hand them to the registry (tools.Registry.Set),
	// must not block for long, and must not call Load, Refresh or Sync.
	OnChange func(*Server)
}

// State is a server's load state.
type State string

const (
	StatePending State = "pending" // not loaded yet
	StateReady   State = "ready"   // the document was read; tools are offered
	StateFailed  State = "failed"  // the last read failed; no tools are offered
)

// Status describes a server for `switchboard servers` and `tools`.
type Status struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	SpecURL   string `json:"specURL,omitempty"` // where the document was found; "" if never
	State     State  `json:"state"`
	LastError string `json:"lastError,omitempty"` // why the last load failed; "" when ready
	Tools     int    `json:"tools"`
	// LoadedAt is when the current document was read; zero if never.
	LoadedAt time.Time `json:"loadedAt,omitzero"`
	// Warnings name operations that were skipped and why.
	Warnings []string `json:"warnings,omitempty"`
}

// Server is one OpenAPI action server and the tools made from its document.
// It is safe for concurrent use and owns no goroutines: the TTL is checked
// when the server is used.
type Server struct {
	name     string
	opts     Options
	client   *http.Client
	logger   *slog.Logger
	now      func() time.Time // tests replace it to move time
	loadMu   sync.Mutex       // serialises loads, so concurrent users fetch once
	mu       sync.Mutex       // guards the fields below
	snap     *snapshot
	status   Status
	tried    time.Time // when the last load finished, successful or not
	hasTried bool
}

// snapshot is what one successful load produced. It is never modified, so
// a call may keep using the one it started with.
type snapshot struct {
	base  string // base URL for calls, without a trailing slash
	ops   map[string]*operation
	tools []tools.Tool
}

// New returns a Server named name; it has no tools until [Server.Load].
// opts may be nil.
func New(name string, opts *Options) *Server {
	s := &Server{name: name, now: time.Now}
	if opts != nil {
		s.opts = *opts
		s.opts.Headers = cloneMap(opts.Headers)
		s.opts.Allow = slices.Clone(opts.Allow)
		s.opts.Deny = slices.Clone(opts.Deny)
	}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = DefaultTimeout
	}
	if s.opts.MaxResponseBytes <= 0 {
		s.opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	s.client = s.opts.HTTPClient
	if s.client == nil {
		s.client = &http.Client{}
	}
	s.client = sameOriginClient(s.client)
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With(logKeyServer, name)
	s.snap = &snapshot{ops: map[string]*operation{}}
	s.status = Status{Name: name, URL: redact.URL(s.opts.URL), State: StatePending}
	return s
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Name returns the configured server name.
func (s *Server) Name() string { return s.name }

// Load reads the document and replaces the tools with its operations. On
// failure the server is failed: it offers no tools and [Server.Status]
// says why; the returned error says the same. When ctx ends during the
// load, nothing changes and ctx's error is returned.
//
// Without an explicit Spec the document is looked for under URL at
// /openapi.json, /, /api/openapi.json and /docs/openapi.json, in that order;
// the first response that parses as OpenAPI 3.x is used.
func (s *Server) Load(ctx context.Context) error {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	return s.loadLocked(ctx)
}

// Refresh re-reads the document now (`switchboard tools --refresh`). It is
// Load under the name callers use after the first load.
func (s *Server) Refresh(ctx context.Context) error { return s.Load(ctx) }

// Sync re-reads the document if the server was never loaded, or if TTL is
// set and the last read is at least TTL old (failed reads count, so a down
// server is retried once per TTL). Otherwise it does nothing. Tool calls
// run it first; the app may run it before listing tools.
func (s *Server) Sync(ctx context.Context) error {
	if !s.due() {
		return nil
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if !s.due() { // another caller loaded while we waited
		return nil
	}
	return s.loadLocked(ctx)
}

func (s *Server) due() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hasTried {
		return true
	}
	return s.opts.TTL > 0 && s.now().Sub(s.tried) >= s.opts.TTL
}

// loadLocked does one load; s.loadMu is held.
func (s *Server) loadLocked(ctx context.Context) error {
	snap, specURL, warnings, err := s.read(ctx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	s.mu.Lock()
	old := s.snap
	oldState := s.status.State
	s.tried, s.hasTried = s.now(), true
	if err != nil {
		s.snap = &snapshot{ops: map[string]*operation{}}
		s.status.State = StateFailed
		s.status.LastError = redact.Text(err.Error())
		s.status.Tools = 0
		s.status.Warnings = nil
	} else {
		s.snap = snap
		s.status.State = StateReady
		s.status.LastError = ""
		s.status.SpecURL = specURL
		s.status.Tools = len(snap.tools)
		s.status.LoadedAt = s.tried
		s.status.Warnings = warnings
	}
	changed := oldState != s.status.State || !sameTools(old, s.snap)
	s.mu.Unlock()

	if err != nil {
		s.logger.WarnContext(ctx, "openapi server failed", logKeyErr, err)
	} else {
		s.logger.InfoContext(ctx, "openapi server loaded", logKeySpec, specURL, logKeyTools, len(snap.tools), logKeySkipped, len(warnings))
	}
	if changed && s.opts.OnChange != nil {
		s.opts.OnChange(s)
	}
	return err
}

// read fetches and parses the document and builds a snapshot from it.
func (s *Server) read(ctx context.Context) (*snapshot, string, []string, error) {
	if err := s.checkGlobs(); err != nil {
		return nil, "", nil, err
	}
	doc, specURL, err := s.fetchDocument(ctx)
	if err != nil {
		return nil, "", nil, fmt.Errorf("reading openapi document of server %q: %w", s.name, err)
	}
	base, err := s.baseURL(doc, specURL)
	if err != nil {
		return nil, "", nil, fmt.Errorf("loading openapi server %q: %w", s.name, err)
	}
	ops, warnings := buildOperations(doc)
	snap := &snapshot{base: base, ops: make(map[string]*operation, len(ops))}
	for _, op := range ops {
		if !s.allowed(op.info.Name) {
			continue
		}
		snap.ops[op.info.Name] = op
		snap.tools = append(snap.tools, &tool{s: s, info: op.info})
	}
	return snap, specURL, warnings, nil
}

// Tools returns the tools of the current document; none before a
// successful load or after a failed one. The slice is the caller's own.
// A tool returned earlier stays usable after a refresh: its call uses the
// current operation of the same name, or reports [tools.ErrUnavailable]
// when the operation is gone.
func (s *Server) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.snap.tools)
}

// Status returns a copy of the server's status.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Warnings = slices.Clone(st.Warnings)
	return st
}

// current returns the snapshot in use and, when it has no operations, why.
func (s *Server) current() (*snapshot, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap, s.status.LastError
}

// sameTools reports whether two snapshots offer the same tools.
func sameTools(a, b *snapshot) bool {
	if len(a.tools) != len(b.tools) || a.base != b.base {
		return false
	}
	for i := range a.tools {
		x, y := a.tools[i].Info(), b.tools[i].Info()
		if x.Name != y.Name || x.Description != y.Description || string(x.InputSchema) != string(y.InputSchema) ||
			x.Title != y.Title || x.Annotations.ReadOnly() != y.Annotations.ReadOnly() {
			return false
		}
	}
	return true
}

var errNoBase = errors.New("no base URL for calls: set url")
