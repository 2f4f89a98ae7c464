package tools

import (
	"errors"
	"fmt"
)

// ErrHeld reports that a tool is held: its server changed the tool's
// definition since an admin accepted it (or since it was first seen), so
// the catalogue neither offers nor calls it until the change is accepted.
var ErrHeld = errors.New("tool held")

// HeldError is the error [Registry.Call] returns for a held tool; it wraps
// [ErrHeld] and tells the reader what to do.
type HeldError struct {
	// Name is the catalogue name of the held tool.
	Name string
	// Reason is why, when it is not the usual one (the definition changed
	// since it was accepted), as the [Pinner] said.
	Reason string
}

func (e *HeldError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("tool %s is held: %s", e.Name, e.Reason)
	}
	return fmt.Sprintf("tool %s changed its definition since it was accepted; an admin must run `switchboard tools accept %s`", e.Name, e.Name)
}

// Unwrap returns [ErrHeld].
func (e *HeldError) Unwrap() error { return ErrHeld }

// Pinner decides which tools the catalogue holds (tool pinning). The
// [Registry] asks it each time a source's tools are set, and again on
// [Registry.Recheck]; the tools it names are left out of List and Lookup,
// and calling one fails with a [HeldError].
//
// Pin is called without the Registry's lock held, possibly from several
// goroutines at once (one per source), and must be safe for that. It
// returns the origin names (Info.Name) of src's tools to hold, each with
// why: [HeldChanged] for a changed definition, or a sentence for
// [HeldError].Reason; a name absent (or mapped to "") is not held, and nil
// holds none. It may do I/O but should bound it: Set waits for it. A Pinner that
// cannot decide (its store is down) should hold the tools it cannot vouch
// for rather than pass them.
type Pinner interface {
	Pin(src Source, infos []Info) (held map[string]string)
}

// HeldChanged is the reason a [Pinner] gives for a tool whose definition
// changed since it was accepted: the usual one, which [HeldError] words.
const HeldChanged = "changed"

// CatalogueName returns the catalogue name o gets when no other tool
// collides with it (see Names under [Registry]). Tools stored by origin
// (pins, for one) use it to name a tool the way users see it.
func CatalogueName(o Origin) string { return primaryName(o) }

// pinSource asks the pinner which of es to hold and returns copies of es
// with held set. es are not modified.
func (r *Registry) pinSource(src Source, es []*entry) []*entry {
	if r.pinner == nil || len(es) == 0 {
		return es
	}
	infos := make([]Info, len(es))
	for i, e := range es {
		infos[i] = e.Info
	}
	held := r.pinner.Pin(src, infos)
	out := make([]*entry, len(es))
	for i, e := range es {
		ne := *e
		ne.hold = held[e.Info.Name]
		out[i] = &ne
	}
	return out
}

// Recheck asks the [Pinner] again about every tool, and releases the tools
// it no longer holds (or holds the ones it now does): call it after an
// admin accepted a change. Without a Pinner it does nothing.
func (r *Registry) Recheck() {
	if r.pinner == nil {
		return
	}
	r.mu.RLock()
	snap := make(map[Source][]*entry, len(r.sources))
	for src, es := range r.sources {
		snap[src] = es
	}
	r.mu.RUnlock()

	fresh := make(map[Source][]*entry, len(snap))
	for src, es := range snap {
		fresh[src] = r.pinSource(src, es)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for src, es := range fresh {
		cur, ok := r.sources[src]
		// A source set again meanwhile was pinned by that Set; keep it.
		if !ok || len(cur) != len(snap[src]) || (len(cur) > 0 && cur[0] != snap[src][0]) {
			continue
		}
		for i := range es {
			if es[i].hold != cur[i].hold {
				changed = true
			}
		}
		r.sources[src] = es
	}
	if changed {
		r.rebuildLocked()
	}
}

// Held returns the tools held by the [Pinner], in List order, under the
// names they would have. The slice is the caller's own.
func (r *Registry) Held() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Entry, 0, len(r.held))
	for _, e := range r.held {
		out = append(out, e.Entry)
	}
	return out
}

// LookupHeld returns the held tool with the catalogue name name and the
// error a call of it gets, or a nil error when no tool of that name is
// held. Surfaces that answer "unknown tool" use it to say instead why the
// tool is missing (after their own permission check, so that a caller
// learns nothing of tools it may not use).
func (r *Registry) LookupHeld(name string) (Entry, *HeldError) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, e := range r.held {
		if e.Name == name {
			he := &HeldError{Name: name}
			if e.hold != HeldChanged {
				he.Reason = e.hold
			}
			return e.Entry, he
		}
	}
	return Entry{}, nil
}
