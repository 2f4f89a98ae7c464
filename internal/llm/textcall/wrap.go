package textcall

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Mode says how tools reach a model.
type Mode string

const (
	// ModeAuto (also the zero value) uses native tool calling unless the
	// provider says the model lacks it ([llm.ToolSupport]) or the server
	// rejects tools ([llm.ErrToolsUnsupported]); then the text protocol, and
	// that choice is remembered for the model.
	ModeAuto Mode = "auto"
	// ModeNative passes requests through untouched; a reply without native
	// calls whose text holds a call in a known format still calls.
	ModeNative Mode = "native"
	// ModeText always uses the text protocol.
	ModeText Mode = "text"
)

// Options configure [Wrap]. The zero value means auto mode, no budget.
type Options struct {
	Mode Mode
	// Budget bounds the manifest in tokens (see [ManifestOptions.Budget]);
	// zero means every tool is described. Set it from the model's context
	// window: a quarter of it is a fair share.
	Budget int
	// MaxTools caps how many tools the manifest describes in full (see
	// [ManifestOptions].MaxTools: zero means [DefaultMaxTools] once the
	// tools must be ranked to fit the budget).
	MaxTools int
	// Pinned names tools described first whenever the manifest must be
	// cut (see [ManifestOptions].Pinned), such as the runtime's tool
	// search, without which the model could not reach the rest.
	Pinned []string
	// NewID returns the id of a call found in text. Nil means "call_"
	// followed by random hex digits. It may be called concurrently.
	NewID func() string
	// Indexer builds the ranking that chooses which tools a manifest
	// describes when not all fit the budget; nil keeps catalogue order.
	Indexer Indexer
	// Logger receives a Debug record when a model is switched to the text
	// protocol. Nil means discard.
	Logger *slog.Logger
}

// Provider is an [llm.Provider] that speaks the text tool protocol to the
// model behind it when that model cannot call tools natively. Use [Wrap].
// It is safe for concurrent use.
type Provider struct {
	inner  llm.Provider
	opts   Options
	logger *slog.Logger

	// asked counts the replies whose call was ambiguous and the model was
	// asked once to write it in the requested format.
	asked atomic.Int64

	mu sync.Mutex
	// native records, per model, whether it takes native tools; absent
	// means not known yet. Guarded by mu.
	native map[string]bool
	// catalogs caches recently used catalogues by fingerprint, newest
	// last. Guarded by mu.
	catalogs []cachedCatalog
}

type cachedCatalog struct {
	key uint64
	cat *Catalog
}

// maxCachedCatalogs is how many distinct tool lists are kept prepared: one
// per agent in a typical setup.
const maxCachedCatalogs = 8

var _ llm.Provider = (*Provider)(nil)

// Wrap returns p behind the tool-mode logic. opts nil means defaults; it is
// copied.
func Wrap(p llm.Provider, opts *Options) *Provider {
	w := &Provider{inner: p, native: make(map[string]bool)}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.Mode == "" {
		w.opts.Mode = ModeAuto
	}
	if w.opts.NewID == nil {
		w.opts.NewID = randomID
	}
	w.logger = w.opts.Logger
	if w.logger == nil {
		w.logger = slog.New(slog.DiscardHandler)
	}
	return w
}

// Unwrap returns the wrapped provider, for its optional interfaces
// ([llm.Checker], [llm.Lister]...).
func (w *Provider) Unwrap() llm.Provider { return w.inner }

// Stream implements [llm.Provider]. In text mode the request goes out
// without tools, the manifest appended to the system prompt and earlier
// calls and results written as text; the reply's calls come back as
// [llm.EventToolCall] events with generated ids, and a reply that calls a
// tool stops with [llm.StopToolUse].
//
// A call to a tool not in the request is still yielded, under the name the
// model wrote, so the caller reports the missing tool back to the model. A
// tool-call block that cannot be read at all is yielded as text.
func (w *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return llm.Once(func(yield func(llm.Event, error) bool) {
		if !hasToolTraffic(req) {
			w.inner.Stream(ctx, req)(yield)
			return
		}
		text, err := w.useText(ctx, req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		if text {
			w.streamText(ctx, req, yield)
			return
		}
		// Native first (in auto mode, switch when the server rejects tools
		// before saying anything). A server without a tool parser returns
		// the model's calls as text: those are read as in text mode.
		started := false
		nt := w.newNativeText(req)
		for ev, err := range w.inner.Stream(ctx, req) {
			if err != nil && !started && w.opts.Mode != ModeNative && errors.Is(err, llm.ErrToolsUnsupported) {
				w.remember(req.Model, false)
				w.logger.DebugContext(ctx, "model rejected native tools; using the text protocol", logKeyModel, req.Model)
				w.streamText(ctx, req, yield)
				return
			}
			started = true
			if err != nil {
				yield(ev, err)
				return
			}
			if !nt.event(ev, yield) {
				return
			}
		}
	})
}

// useText decides the mode of one request.
func (w *Provider) useText(ctx context.Context, req *llm.Request) (bool, error) {
	switch w.opts.Mode {
	case ModeText:
		return true, nil
	case ModeNative:
		return false, nil
	}
	w.mu.Lock()
	native, known := w.native[req.Model]
	w.mu.Unlock()
	if known {
		return !native, nil
	}
	ts, ok := w.inner.(llm.ToolSupport)
	if !ok {
		return false, nil
	}
	native, err := ts.SupportsTools(ctx, req.Model)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("asking whether %q supports tools: %w", req.Model, ctx.Err())
		}
		// The capability check is a hint: try native and fall back.
		w.logger.DebugContext(ctx, "tool support check failed", logKeyModel, req.Model, logKeyErr, err.Error())
		return false, nil
	}
	w.remember(req.Model, native)
	return !native, nil
}

func (w *Provider) remember(model string, native bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.native[model] = native
}

// hasToolTraffic reports whether req offers tools or carries earlier calls
// or results, the things the text protocol rewrites.
func hasToolTraffic(req *llm.Request) bool {
	if len(req.Tools) > 0 {
		return true
	}
	for i := range req.Messages {
		if m := &req.Messages[i]; len(m.ToolCalls) > 0 || m.Role == llm.RoleTool {
			return true
		}
	}
	return false
}

// streamText sends req in text mode and converts the reply.
func (w *Provider) streamText(ctx context.Context, req *llm.Request, yield func(llm.Event, error) bool) {
	cat := w.catalog(req.Tools)
	treq := w.textRequest(ctx, req, cat)
	sp := cat.Parser().NewStream()
	calls := 0
	var reply strings.Builder
	emit := func(parts []Part) bool {
		for _, pt := range parts {
			var ev llm.Event
			switch {
			case pt.Call == nil && pt.Reasoning:
				ev = llm.Event{Type: llm.EventReasoningDelta, Text: pt.Text}
			case pt.Call == nil:
				ev = llm.Event{Type: llm.EventTextDelta, Text: pt.Text}
			case pt.Call.Err != nil && pt.Call.Name == "":
				ev = llm.Event{Type: llm.EventTextDelta, Text: pt.Call.Raw}
			default:
				calls++
				ev = llm.Event{Type: llm.EventToolCall, ToolCall: llm.ToolCall{
					ID: w.opts.NewID(), Name: pt.Call.Name, Arguments: pt.Call.Arguments,
				}}
			}
			if !yield(ev, nil) {
				return false
			}
		}
		return true
	}
	for ev, err := range w.inner.Stream(ctx, treq) {
		if err != nil {
			yield(ev, err)
			return
		}
		switch ev.Type {
		case llm.EventTextDelta:
			if reply.Len() < maxRestated {
				reply.WriteString(ev.Text)
			}
			if !emit(sp.Feed(ev.Text)) {
				return
			}
			continue
		case llm.EventStop:
			if !emit(sp.Close()) {
				return
			}
			if calls == 0 && sp.Ambiguous() {
				n, ok := w.askOnce(ctx, treq, reply.String(), cat, emit)
				if !ok {
					return
				}
				calls += n
			}
			if calls > 0 && (ev.StopReason == llm.StopEndTurn || ev.StopReason == llm.StopSequence) {
				ev.StopReason = llm.StopToolUse
			}
		case llm.EventToolCall:
			// The model called natively after all: pass it on.
			calls++
		}
		if !yield(ev, nil) {
			return
		}
	}
}

// catalog returns the prepared catalogue for tools, from the cache when
// the same list was seen recently.
func (w *Provider) catalog(tools []llm.ToolSpec) *Catalog {
	key := fingerprint(tools)
	w.mu.Lock()
	for i, c := range w.catalogs {
		if c.key == key {
			// Move to the end: most recently used.
			w.catalogs = append(append(w.catalogs[:i:i], w.catalogs[i+1:]...), c)
			w.mu.Unlock()
			return c.cat
		}
	}
	w.mu.Unlock()
	cat := NewCatalog(tools, w.opts.Indexer) // outside the lock: large catalogues take milliseconds
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.catalogs) == maxCachedCatalogs {
		w.catalogs = append(w.catalogs[:0:0], w.catalogs[1:]...)
	}
	w.catalogs = append(w.catalogs, cachedCatalog{key: key, cat: cat})
	return cat
}

// fingerprint hashes everything of a tool list that a Catalog depends on.
func fingerprint(tools []llm.ToolSpec) uint64 {
	h := fnv.New64a()
	for _, t := range tools {
		for _, s := range [...][]byte{[]byte(t.Name), []byte(t.Description), t.Parameters} {
			fmt.Fprintf(h, "%d:", len(s))
			h.Write(s)
		}
	}
	return h.Sum64()
}

func randomID() string { return fmt.Sprintf("call_%016x", rand.Uint64()) }

// maxRestated bounds the reply quoted back when asking about it.
const maxRestated = 16 << 10

// askPrompt is the one short question sent when a reply ends with a call
// given as an example: the model either writes it properly or says no.
const askPrompt = "Did you mean to call that tool now? If so, reply with only the call, exactly as " +
	`<tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>. If not, reply with only: no call`

// Asked reports how many times a model was asked to restate an ambiguous
// call.
func (w *Provider) Asked() int64 { return w.asked.Load() }

// askOnce asks the model, once, whether the example it ended its reply
// with was meant as a call, and emits the calls of its answer (its text is
// not shown: the user has the first reply). It reports the number of calls
// and false when the consumer stopped.
func (w *Provider) askOnce(ctx context.Context, treq *llm.Request, reply string, cat *Catalog, emit func([]Part) bool) (int, bool) {
	w.asked.Add(1)
	w.logger.InfoContext(ctx, "reply ended with a call given as an example; asking the model once", logKeyModel, treq.Model)
	req := *treq
	req.Messages = append(append([]llm.Message(nil), treq.Messages...), llm.AssistantText(reply), llm.UserText(askPrompt))
	sp := cat.Parser().NewStream()
	var parts []Part
	for ev, err := range w.inner.Stream(ctx, &req) {
		if err != nil {
			// The question is a courtesy: its failure leaves the first
			// reply as it was.
			w.logger.DebugContext(ctx, "asking about an ambiguous call failed", logKeyModel, treq.Model, logKeyErr, err.Error())
			return 0, true
		}
		if ev.Type == llm.EventTextDelta {
			parts = append(parts, sp.Feed(ev.Text)...)
		}
	}
	parts = append(parts, sp.Close()...)
	var calls []Part
	for _, pt := range parts {
		if pt.Call != nil && pt.Call.Err == nil {
			calls = append(calls, pt)
		}
	}
	return len(calls), emit(calls)
}
