package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// Runtime runs agent turns. Create it with [New]. It is safe for
// concurrent use: any number of runs, decisions and sampling requests may
// proceed at once. It owns no goroutines between runs.
type Runtime struct {
	models    ModelFunc
	tools     Catalog
	gate      *gate.Gate // permission hooks, policy and audit of every call
	opts      Options
	limits    atomic.Pointer[Limits] // what turns start with now (SetLimits)
	logger    *slog.Logger
	history   History
	approvals Approvals
	// own are the assistant's agent-management tools, in ownReg.
	own    []tools.Entry
	ownReg *tools.Registry

	mu sync.Mutex
	// waiting maps a pending approval id to the call waiting on it; mu
	// guards it.
	waiting map[string]chan Decision
	// active holds the running turns, for sampling and elicitation
	// requests that need a conversation; mu guards it.
	active map[*turn]struct{}
	// urlElicits maps a server's URL-mode elicitation (server and
	// elicitationId) to the approval asking it, for the server's
	// notifications/elicitation/complete; mu guards it, nil until used.
	urlElicits map[urlElicit]string

	// ixMu guards the retrieval index of the catalogue (see indexFor):
	// the last one built, its catalogue's fingerprint and its options.
	ixMu   sync.Mutex
	ix     *rank.Index
	ixKey  uint64
	ixOpts *rank.Options

	// assistant, once set by SetAssistant, replaces Options.Assistant.
	assistant atomic.Pointer[store.Agent]
}

// New returns a Runtime that answers with the models resolves and calls
// the tools of catalog (normally the app's [*tools.Registry], listed at
// every model step, so tools that come and go are seen at once) through g,
// the enforcement path shared with the tools API and the MCP gateway: its
// policy decides approvals, its limiter limits the run's caller, its audit
// log records the run's calls. All three are required: New panics on nil,
// a wiring mistake rather than bad input. opts is copied; nil means
// defaults.
func New(models ModelFunc, catalog Catalog, g *gate.Gate, opts *Options) *Runtime {
	if models == nil || catalog == nil || g == nil {
		panic("agent.New: models, catalog and gate are required")
	}
	r := &Runtime{
		models:  models,
		tools:   catalog,
		gate:    g,
		waiting: make(map[string]chan Decision),
		active:  make(map[*turn]struct{}),
	}
	if opts != nil {
		r.opts = *opts
	}
	l := r.opts.Limits.withDefaults()
	r.limits.Store(&l)
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	if r.opts.NewID == nil {
		r.opts.NewID = rand.Text
	}
	r.logger = r.opts.Logger
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.history = r.opts.History
	if r.history == nil {
		r.history = newMemHistory()
	}
	r.approvals = r.opts.Approvals
	if r.approvals == nil {
		r.approvals = newMemApprovals(r.opts.NewID, r.opts.Now)
	}
	r.own = r.assistantTools()
	return r
}

// eventBuffer is the run's event channel size. Ordinary events wait for
// room; progress events are dropped when it is full, because a tool's
// progress callback must not block.
const eventBuffer = 64

// Run runs one user turn and yields its events. The user's message and
// every message produced are appended to History as they happen; a
// stateless run ([Request].Messages set) reads and writes no History.
//
// A request that cannot run as given yields only an error wrapping
// [ErrInvalidRequest], before anything happens.
//
// The stream ends with an [EventDone] when the turn ended normally, at
// client tool calls ([StopClientTools]) or at a limit (then an
// [EventError] and a final text explain it). A failure
// that stops the loop (the model's endpoint failed, history could not be
// written) ends it with an error instead. Cancelling ctx, or breaking out
// of the range, cancels the model request and the running tool calls,
// records those calls as cancelled, and ends the stream promptly; after a
// cancelled ctx the last pair is an error wrapping ctx's error.
//
// The request runs when the sequence is ranged over, which may happen
// once: running the turn again would repeat the user's message, so a
// second range yields only [ErrRunReused].
func (r *Runtime) Run(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	var used atomic.Bool
	return func(yield func(Event, error) bool) {
		if used.Swap(true) {
			yield(Event{}, ErrRunReused)
			return
		}
		if err := req.validate(); err != nil {
			yield(Event{}, err)
			return
		}
		if err := r.checkClientTools(req); err != nil {
			yield(Event{}, err)
			return
		}
		life, cancel := context.WithCancel(ctx)
		defer cancel()
		t := r.newTurn(life, req)
		r.track(t, true)
		defer r.track(t, false)

		done := make(chan error, 1)
		go func() { done <- t.run(life) }()
		for {
			select {
			case ev := <-t.out:
				if !yield(ev, nil) {
					cancel()
					if err := <-done; err != nil {
						// The consumer left, so this log is the only trace.
						r.logger.DebugContext(ctx, "agent run ended after its consumer left", logKeyErr, err)
					}
					return
				}
			case err := <-done:
				// Every send happened before run returned: drain them.
				for {
					select {
					case ev := <-t.out:
						if !yield(ev, nil) {
							return
						}
						continue
					default:
					}
					break
				}
				if err != nil {
					yield(Event{}, err)
				}
				return
			}
		}
	}
}

func (r *Runtime) track(t *turn, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.active[t] = struct{}{}
	} else {
		delete(r.active, t)
	}
}

// writeTimeout bounds a history, audit or approval write made after the
// run's context ended, so the record survives a client that went away.
const writeTimeout = 10 * time.Second

// persistCtx returns a context for writes that must happen even when ctx
// was cancelled.
func persistCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
}

// ErrRunReused is yielded by a [Runtime.Run] sequence ranged over twice.
var ErrRunReused = errors.New("agent run sequence ranged over twice; call Run again for a new turn")

// errTurnTimeout is the cause of a turn's context when TurnTimeout passed.
var errTurnTimeout = errors.New("turn time limit reached")

// model resolves a model name.
func (r *Runtime) model(name string) (Model, error) {
	m, err := r.models(name)
	if err != nil {
		return Model{}, fmt.Errorf("resolving model %q: %w", name, err)
	}
	if m.Provider == nil {
		return Model{}, fmt.Errorf("resolving model %q: it has no provider", name)
	}
	return m, nil
}

// agent returns the spec of the named agent; "" is the assistant.
func (r *Runtime) agent(ctx context.Context, name string) (store.Agent, error) {
	if name == "" {
		a := r.assistantSpec()
		a.Name = ""
		return a, nil
	}
	if r.opts.Agents == nil {
		return store.Agent{}, fmt.Errorf("running agent %q: no such agent (no agents are configured)", name)
	}
	a, err := r.opts.Agents.GetAgent(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return store.Agent{}, fmt.Errorf("running agent %q: no such agent; list them with list_agents or the agents API", name)
	}
	if err != nil {
		return store.Agent{}, fmt.Errorf("loading agent %q: %w", name, err)
	}
	return a, nil
}

// knownMention returns the first mention in text that names an existing
// agent other than self.
func (r *Runtime) knownMention(ctx context.Context, text, self string) (string, bool) {
	if r.opts.Agents == nil {
		return "", false
	}
	for _, m := range ScanMentions(text) {
		if m.Name == self {
			continue
		}
		_, err := r.opts.Agents.GetAgent(ctx, m.Name)
		switch {
		case err == nil:
			return m.Name, true
		case !errors.Is(err, store.ErrNotFound):
			r.logger.WarnContext(ctx, "looking up mentioned agent", logKeyAgent, m.Name, logKeyErr, err)
		}
	}
	return "", false
}

// usageSum adds b to a.
func usageSum(a, b llm.Usage) llm.Usage {
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.ReasoningTokens += b.ReasoningTokens
	return a
}
