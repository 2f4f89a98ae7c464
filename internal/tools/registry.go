package tools

import (
	"log/slog"
	"slices"
	"sync"
)

// Source is one provider of tools: the built-in set (Kind [KindBuiltin],
// Server "") or one configured MCP or OpenAPI server.
type Source struct {
	Kind   Kind
	Server string
}

// Entry is one tool in the catalogue. Name is the catalogue name the models
// see (see Names under [Registry]); Origin says where the tool lives.
// Info is the tool's own Info, read once when its source was set. Callers
// must not modify Info's slices.
type Entry struct {
	Name   string
	Origin Origin
	Info   Info
	Tool   Tool
}

// DefaultResultLimit is the number of text bytes per result a model sees
// when [RegistryOptions].ResultLimit is 0.
const DefaultResultLimit = 64 << 10

// RegistryOptions configures a [Registry]. A nil or zero value means defaults.
type RegistryOptions struct {
	// ResultLimit is the number of bytes of text per result the model sees
	// (the cut note comes on top); 0 means [DefaultResultLimit] and a
	// negative value means no limit.
	ResultLimit int
	// OutputDir is where the full text of cut results is kept, as
	// <OutputDir>/<user>/<id>.txt for read_tool_output, filed under the
	// user the call acts for ([UserOf], [UserOutputDir]). "" keeps none.
	OutputDir string
	// Logger receives warnings (schemas that do not compile, outputs that
	// could not be stored). Nil discards them.
	Logger *slog.Logger
	// Pinner, when set, holds tools whose definition changed since it was
	// accepted; see [Pinner]. Nil holds none.
	Pinner Pinner
}

// Registry is the one catalogue of every tool, built-in, MCP and OpenAPI,
// under provider-safe, stable names.
//
// A Registry is safe for concurrent use: supervisors call [Registry.Set]
// from their own goroutines while calls run. A call that started keeps the
// tool it looked up even if its source is replaced meanwhile. The Registry
// owns no goroutines.
//
// # Names
//
// Every tool has a catalogue name that matches ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$,
// which every model provider accepts. The name of an [Origin] is a pure
// function of that origin, so the same configuration yields the same names
// whatever order servers connect in:
//
//  1. The base name is the tool's own name for a built-in tool, and
//     server + "__" + tool for MCP and OpenAPI tools.
//  2. The base name is kept unchanged when it is already valid and cannot be
//     confused with another origin's: a built-in name must not contain "__";
//     a server name must start with a letter, use only [a-zA-Z0-9_-], contain
//     no "__" and not end in "_" (so the first "__" always splits server from
//     tool); the tool part must be non-empty and use only [a-zA-Z0-9_-]; and
//     the whole must be at most 64 bytes. Kept names never collide.
//  3. Otherwise the name is hashed: every byte outside [a-zA-Z0-9_-] becomes
//     "_" (a multi-byte rune becomes one "_"), "t" is prefixed when the first
//     byte is not a letter, the result is cut to 55 bytes, and "_" plus the
//     first 8 hex digits of SHA-256(kind NUL server NUL tool) is appended:
//     "git"/"repo.status" becomes "git__repo_status_06342f11".
//  4. When two origins still end up with one name (a hashed name that happens
//     to equal another, a hash collision, or an MCP and an OpenAPI server
//     with the same name), the origins are sorted (built-ins first, then by
//     server, tool name and kind); the first keeps the name and each later
//     one gets the step-3 form with a 16-digit hash salted with a counter
//     until it is unique. This depends only on the set of tools, never on
//     the order they were added.
//
// The mapping is reversible: [Registry.Lookup] returns the [Origin] of a
// catalogue name.
//
// # Arguments and results
//
// [Registry.Call] validates arguments against the tool's input schema
// before the call (see validate.go: schemas are compiled once, without
// following external references, and a schema that does not compile is
// logged and skipped rather than making the tool uncallable), and bounds
// the text of the result (see bound.go: head and tail with a note, the full
// text kept for read_tool_output).
type Registry struct {
	limit   int
	outputs *OutputStore
	logger  *slog.Logger
	pinner  Pinner

	// mu guards the fields below it.
	mu      sync.RWMutex
	sources map[Source][]*entry
	entries []*entry          // every entry, in List order
	byName  map[string]*entry // by catalogue name
	held    []*entry          // tools the pinner holds, in List order; not in entries or byName
	// tickets counts the Sets begun per source, applied the newest one
	// applied (see Set).
	tickets, applied map[Source]uint64
	schemas          map[string]*argValidator
	version          uint64
	changed          chan struct{} // closed and replaced on every change
}

type entry struct {
	Entry
	primary string // the name before collisions are resolved
	val     *argValidator
	hold    string // why the pinner holds it ("" when it does not): not listed, not callable
}

// NewRegistry returns an empty Registry. opts may be nil.
func NewRegistry(opts *RegistryOptions) *Registry {
	var o RegistryOptions
	if opts != nil {
		o = *opts
	}
	if o.ResultLimit == 0 {
		o.ResultLimit = DefaultResultLimit
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Registry{
		limit:   o.ResultLimit,
		outputs: NewOutputStore(o.OutputDir, o.ResultLimit, o.Logger),
		logger:  o.Logger,
		pinner:  o.Pinner,
		sources: make(map[Source][]*entry),
		tickets: make(map[Source]uint64),
		applied: make(map[Source]uint64),
		byName:  make(map[string]*entry),
		schemas: make(map[string]*argValidator),
		changed: make(chan struct{}),
	}
}

// Set replaces every tool of src with ts, atomically: a concurrent
// [Registry.List] sees either all the old tools of src or all the new ones.
// A nil or empty ts removes the source. Set calls each tool's Info once;
// nil tools are skipped, and of several tools of one source with the same
// name only the first is kept. Set never blocks on listeners of
// [Registry.Changed].
func (r *Registry) Set(src Source, ts []Tool) {
	fresh := make([]*entry, 0, len(ts))
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		if t == nil {
			continue
		}
		info := t.Info()
		if seen[info.Name] {
			r.logger.Warn("duplicate tool name dropped", logKeyKind, src.Kind, logKeyServer, src.Server, logKeyTool, info.Name)
			continue
		}
		seen[info.Name] = true
		o := Origin{Kind: src.Kind, Server: src.Server, Name: info.Name}
		fresh = append(fresh, &entry{Entry: Entry{Origin: o, Info: info, Tool: t}, primary: primaryName(o)})
	}
	// Pin before taking the lock: the pinner may do I/O, and a held tool
	// must never be visible, not even between two changes. Two Sets of one
	// source pinning at once finish in any order; the ticket makes the one
	// that began last win, as it would without a pinner.
	r.mu.Lock()
	r.tickets[src]++
	ticket := r.tickets[src]
	r.mu.Unlock()
	fresh = r.pinSource(src, fresh)

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.applied[src] > ticket {
		return // a later Set of src is already in
	}
	r.applied[src] = ticket
	if _, ok := r.sources[src]; !ok && len(fresh) == 0 {
		return
	}
	if len(fresh) == 0 {
		delete(r.sources, src)
	} else {
		r.sources[src] = fresh
	}
	r.rebuildLocked()
}

// rebuildLocked recomputes names, order and the schema cache from sources.
// Entries are replaced, not edited, so a caller holding an old *entry keeps a
// consistent view.
func (r *Registry) rebuildLocked() {
	var all []*entry
	for _, es := range r.sources {
		all = append(all, es...)
	}
	slices.SortFunc(all, func(a, b *entry) int { return compareOrigins(a.Origin, b.Origin) })
	origins := make([]Origin, len(all))
	primaries := make([]string, len(all))
	for i, e := range all {
		origins[i], primaries[i] = e.Origin, e.primary
	}
	names := resolveNames(origins, primaries)

	// Held tools take part in naming, so that holding or releasing one
	// never renames another.
	entries := make([]*entry, 0, len(all))
	var held []*entry
	byName := make(map[string]*entry, len(all))
	schemas := make(map[string]*argValidator, len(r.schemas))
	for i, e := range all {
		key := string(e.Info.InputSchema)
		v, ok := schemas[key]
		if !ok {
			// Reuse the compiled validator of an unchanged schema; schemas
			// no tool uses any more fall out of the cache here.
			if v, ok = r.schemas[key]; !ok {
				v = newArgValidator(e.Info.InputSchema)
			}
			schemas[key] = v
		}
		ne := &entry{Entry: e.Entry, primary: e.primary, val: v, hold: e.hold}
		ne.Name = names[i]
		if ne.hold != "" {
			held = append(held, ne)
			continue
		}
		entries = append(entries, ne)
		byName[ne.Name] = ne
	}
	r.entries, r.byName, r.schemas, r.held = entries, byName, schemas, held
	r.version++
	close(r.changed)
	r.changed = make(chan struct{})
}

// List returns every tool in a stable order: built-ins first, then by
// server name, then by tool name. The slice is the caller's own.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Entry, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Entry
	}
	return out
}

// Lookup returns the tool with the catalogue name name, and reports whether
// there is one. The Entry's Origin maps the name back to where it lives.
func (r *Registry) Lookup(name string) (Entry, bool) {
	e, ok := r.lookup(name)
	if !ok {
		return Entry{}, false
	}
	return e.Entry, true
}

func (r *Registry) lookup(name string) (*entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.byName[name]
	return e, ok
}

// Changed returns a channel that is closed at the next change of the
// catalogue. To follow changes without missing one, take the channel before
// reading the catalogue:
//
//	for {
//		ch := r.Changed()
//		publish(r.List())
//		select {
//		case <-ch:
//		case <-ctx.Done():
//			return
//		}
//	}
//
// Each change closes the channel and makes a new one, so any number of
// listeners wait without goroutines or buffers, and a slow listener never
// blocks Set; it just sees several changes as one.
func (r *Registry) Changed() <-chan struct{} {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.changed
}

// Version returns a counter that grows by one on every change of the
// catalogue; equal versions mean an unchanged catalogue.
func (r *Registry) Version() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.version
}
