package pin

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Store is what pinning keeps: the pins, and the audit trail the events go
// to.
type Store interface {
	store.Pins
	store.AuditLog
}

// Options configure a [Pinner]. Store is required.
type Options struct {
	// Store opens (or returns) the store; it is called on each decision, so
	// a store opened lazily is opened on first need.
	Store func(ctx context.Context) (Store, error)
	// Auto reports whether server's changes are accepted on sight
	// (pinning: auto). Nil means never.
	Auto func(server string) bool
	// Timeout bounds the store work of one decision (default 10s).
	Timeout time.Duration
	// Logger receives holds and store failures. Nil discards them.
	Logger *slog.Logger
}

// Pinner is the store-backed [tools.Pinner]. It is safe for concurrent use
// and owns no goroutines.
type Pinner struct {
	open    func(ctx context.Context) (Store, error)
	auto    func(string) bool
	timeout time.Duration
	logger  *slog.Logger

	// mu guards known.
	mu sync.Mutex
	// known is the last accepted hash read for each server/tool, used only
	// when the store cannot be reached: a tool whose definition is the one
	// last known accepted stays available, any other is held (fail closed).
	known map[[2]string]string
}

var _ tools.Pinner = (*Pinner)(nil)

// New returns a Pinner. It panics if opts.Store is nil.
func New(opts Options) *Pinner {
	if opts.Store == nil {
		panic("pin.New: nil Store")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Auto == nil {
		opts.Auto = func(string) bool { return false }
	}
	return &Pinner{open: opts.Store, auto: opts.Auto, timeout: opts.Timeout, logger: opts.Logger, known: map[[2]string]string{}}
}

// Pin implements [tools.Pinner]: a tool seen for the first time is pinned
// and passes; one whose definition hashes to the accepted hash passes; any
// other is held (its definition recorded as pending) unless the server's
// pinning is auto, in which case the change is accepted. Built-in tools
// always pass.
func (p *Pinner) Pin(src tools.Source, infos []tools.Info) map[string]string {
	if src.Kind == tools.KindBuiltin || len(infos) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	held := make(map[string]string)
	st, err := p.open(ctx)
	var pins map[string]store.Pin
	if err == nil {
		pins, err = p.listPins(ctx, st, src.Server)
	}
	if err != nil {
		p.logger.Error("tool pins unreadable; holding the server's tools not known to be accepted", logKeyServer, src.Server, logKeyErr, err)
		return p.holdUnknown(src, infos)
	}
	for _, in := range infos {
		def, hash, err := Definition(in)
		if err != nil {
			p.logger.Warn("tool definition unreadable; holding the tool", logKeyServer, src.Server, logKeyTool, in.Name, logKeyErr, err)
			held[in.Name] = "its definition could not be encoded to check it against the accepted one; the log says why"
			continue
		}
		if reason := p.decide(ctx, st, src, in.Name, pins, def, hash); reason != "" {
			held[in.Name] = reason
		}
	}
	return held
}

func (p *Pinner) listPins(ctx context.Context, st Store, server string) (map[string]store.Pin, error) {
	list, err := st.ListPins(ctx, store.PinFilter{Server: server})
	if err != nil {
		return nil, err
	}
	pins := make(map[string]store.Pin, len(list))
	for _, pn := range list {
		pins[pn.Tool] = pn
	}
	return pins, nil
}

// reasonStore is why a tool is held when its pin cannot be read or written.
const reasonStore = "its pin could not be read or written in the database, so its definition cannot be checked against the accepted one; the log says why, and the tool comes back once the database answers"

// decide returns why the tool name of src with definition def is held, or
// "" when it passes, recording what it saw.
func (p *Pinner) decide(ctx context.Context, st Store, src tools.Source, name string, pins map[string]store.Pin, def []byte, hash string) string {
	pn, ok := pins[name]
	if !ok {
		created, err := st.CreatePin(ctx, store.Pin{Server: src.Server, Tool: name, Kind: string(src.Kind), Hash: hash, Accepted: def})
		switch {
		case err == nil:
			p.remember(created)
			p.audit(ctx, st, src, name, store.AuditPinned, "", hash, "")
			return ""
		case errors.Is(err, store.ErrConflict):
			// Another process saw it first; judge by its pin.
			if pn, err = st.GetPin(ctx, src.Server, name); err != nil {
				p.logger.Error("tool pin unreadable; holding the tool", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
				return reasonStore
			}
		default:
			p.logger.Error("pinning a new tool failed; holding it", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
			return reasonStore
		}
	}
	p.remember(pn)
	if pn.Hash == hash {
		if pn.Status == store.PinHeld {
			// The server went back to the accepted definition: drop the
			// pending one, so that nobody reviews (and accepts) a change
			// the server no longer offers.
			if err := st.DropPending(ctx, src.Server, name); err != nil {
				p.logger.Warn("dropping a change the server took back failed", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
			}
		}
		return ""
	}
	if pn.Status == store.PinHeld && pn.PendingHash == hash && !p.auto(src.Server) {
		return tools.HeldChanged // held before, with this very change: nothing new to record
	}
	if _, err := st.HoldPin(ctx, src.Server, name, hash, def); err != nil {
		p.logger.Error("recording a changed tool failed; holding it", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
		return reasonStore
	}
	if p.auto(src.Server) {
		acc, err := st.AcceptPin(ctx, src.Server, name, hash)
		if err != nil {
			p.logger.Error("accepting a changed tool (pinning auto) failed; holding it", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
			return reasonStore
		}
		p.remember(acc)
		p.audit(ctx, st, src, name, store.AuditAutoAccepted, "", hash, pn.Hash)
		p.logger.Info("tool definition changed; accepted (pinning auto)", logKeyServer, src.Server, logKeyTool, name, logKeyHash, hash)
		return ""
	}
	p.audit(ctx, st, src, name, store.AuditHeld, "", hash, pn.Hash)
	p.logger.Warn("tool definition changed; held until an admin accepts it", logKeyServer, src.Server, logKeyTool, name, logKeyHash, hash)
	return tools.HeldChanged
}

// holdUnknown is Pin when the store is unreachable.
func (p *Pinner) holdUnknown(src tools.Source, infos []tools.Info) map[string]string {
	held := make(map[string]string)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, in := range infos {
		_, hash, err := Definition(in)
		if err != nil || p.known[[2]string{src.Server, in.Name}] != hash {
			held[in.Name] = "the tool pins could not be read from the database, so its definition cannot be checked against the accepted one; the log says why, and the tool comes back once the database answers"
		}
	}
	return held
}

func (p *Pinner) remember(pn store.Pin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.known[[2]string{pn.Server, pn.Tool}] = pn.Hash
}

// audit records a pin event; a failure is logged, since the decision
// stands either way.
func (p *Pinner) audit(ctx context.Context, st store.AuditLog, src tools.Source, name string, ev store.AuditApproval, user, hash, previous string) {
	if err := Audit(ctx, st, Event{Kind: src.Kind, Server: src.Server, Tool: name, Approval: ev, User: user, Hash: hash, Previous: previous}); err != nil {
		p.logger.Error("auditing a tool pin event failed", logKeyServer, src.Server, logKeyTool, name, logKeyErr, err)
	}
}

// Event is one pin event for the audit trail.
type Event struct {
	Kind     tools.Kind
	Server   string
	Tool     string // the tool's name at its server
	Approval store.AuditApproval
	User     string // who accepted; empty for the pinner's own events
	Hash     string // the definition now accepted or held
	Previous string // the hash accepted before, if any
}

// Audit writes ev to the audit trail as a finished record: Tool is the
// catalogue name, Arguments {"hash":...,"previous":...}, Outcome ok, or
// denied for a hold.
func Audit(ctx context.Context, st store.AuditLog, ev Event) error {
	args, err := json.Marshal(struct {
		Hash     string `json:"hash"`
		Previous string `json:"previous,omitempty"`
	}{ev.Hash, ev.Previous})
	if err != nil {
		return err
	}
	id, err := st.BeginAudit(ctx, store.AuditRecord{
		User: ev.User, Tool: tools.CatalogueName(tools.Origin{Kind: ev.Kind, Server: ev.Server, Name: ev.Tool}),
		Server: ev.Server, Arguments: args, Approval: ev.Approval,
	})
	if err != nil {
		return err
	}
	res := store.AuditResult{Outcome: store.OutcomeOK, Approval: ev.Approval}
	if ev.Approval == store.AuditHeld {
		res.Outcome, res.Error = store.OutcomeDenied, "the server changed the tool's definition; held until an admin accepts it"
	}
	return st.FinishAudit(ctx, id, res)
}
