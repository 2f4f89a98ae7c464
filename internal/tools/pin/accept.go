package pin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ErrNotHeld reports that a tool named for acceptance is not held.
var ErrNotHeld = errors.New("tool not held")

// Change is one held tool: what was accepted, what the server offers now,
// and the diff between them.
type Change struct {
	// Name is the tool's catalogue name (server__tool), the name to accept.
	Name   string `json:"name"`
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Kind   string `json:"kind"`
	// Hash is the accepted definition's; PendingHash the changed one's.
	Hash        string `json:"hash"`
	PendingHash string `json:"pendingHash"`
	Accepted    string `json:"accepted"`
	Pending     string `json:"pending"`
	// Diff is a unified diff from Accepted to Pending.
	Diff string `json:"diff"`
	// Short is the first 12 digits of PendingHash, to pass back to accept
	// (`--hash`) so that only the reviewed change is accepted.
	Short     string    `json:"short"`
	HeldSince time.Time `json:"heldSince"`
}

func changeOf(pn store.Pin) Change {
	return Change{
		Name:   tools.CatalogueName(tools.Origin{Kind: tools.Kind(pn.Kind), Server: pn.Server, Name: pn.Tool}),
		Server: pn.Server, Tool: pn.Tool, Kind: pn.Kind, Hash: pn.Hash, PendingHash: pn.PendingHash,
		Accepted: string(pn.Accepted), Pending: string(pn.Pending),
		Diff: Diff(pn.Accepted, pn.Pending), Short: short(pn.PendingHash), HeldSince: pn.UpdatedAt,
	}
}

// Changes returns every held tool with its diff, ordered by server and tool.
func Changes(ctx context.Context, st store.Pins) ([]Change, error) {
	pins, err := st.ListPins(ctx, store.PinFilter{Status: store.PinHeld})
	if err != nil {
		return nil, fmt.Errorf("listing held tools: %w", err)
	}
	out := make([]Change, 0, len(pins))
	for _, pn := range pins {
		out = append(out, changeOf(pn))
	}
	return out, nil
}

// Selection says which held tools [Accept] accepts: the tools named (by
// catalogue name), every held tool of Server, or All.
type Selection struct {
	Names  []string
	Server string
	All    bool
	// Hashes, when set for a name, is the pending hash (or a prefix of at
	// least 8 hex digits) the admin reviewed: if the tool changed again
	// since, it is not accepted (an error wrapping [store.ErrConflict]), so
	// that a server cannot swap in another change between review and
	// acceptance.
	Hashes map[string]string
}

// Accept accepts the selected held tools' pending definitions, each
// audited with by as the user, and returns what it accepted. A name that
// is not a held tool is an error wrapping [ErrNotHeld] (nothing is
// accepted then); a Server or All that selects nothing accepts nothing
// and is not an error. A change that changed again meanwhile is not
// accepted: the error wraps [store.ErrConflict]. The caller releases the
// tools in a running catalogue with [tools.Registry.Recheck].
func Accept(ctx context.Context, st Store, sel Selection, by string) ([]Change, error) {
	held, err := Changes(ctx, st)
	if err != nil {
		return nil, err
	}
	var chosen []Change
	for _, name := range sel.Names {
		i := slices.IndexFunc(held, func(c Change) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("accepting %s: %w; held tools: %s", name, ErrNotHeld, heldNames(held))
		}
		if h := sel.Hashes[name]; h != "" && (len(h) < 8 || !strings.HasPrefix(held[i].PendingHash, strings.ToLower(h))) {
			return nil, fmt.Errorf("accepting %s: it changed again since the reviewed definition %s (now %s); review the new diff: %w",
				name, h, short(held[i].PendingHash), store.ErrConflict)
		}
		chosen = append(chosen, held[i])
	}
	for _, c := range held {
		if (sel.All || (sel.Server != "" && c.Server == sel.Server)) && !slices.ContainsFunc(chosen, func(d Change) bool { return d.Name == c.Name }) {
			chosen = append(chosen, c)
		}
	}
	var done []Change
	for _, c := range chosen {
		if _, err := st.AcceptPin(ctx, c.Server, c.Tool, c.PendingHash); err != nil {
			return done, fmt.Errorf("accepting %s: %w", c.Name, err)
		}
		if err := Audit(ctx, st, Event{
			Kind: tools.Kind(c.Kind), Server: c.Server, Tool: c.Tool, Approval: store.AuditAccepted,
			User: by, Hash: c.PendingHash, Previous: c.Hash,
		}); err != nil {
			return done, fmt.Errorf("auditing the acceptance of %s: %w", c.Name, err)
		}
		done = append(done, c)
	}
	return done, nil
}

// short is the part of a hash shown to people (and accepted back).
func short(hash string) string { return hash[:min(12, len(hash))] }

func heldNames(cs []Change) string {
	if len(cs) == 0 {
		return "none"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
