package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// PutEntry implements [server.RuntimeConfig]: it checks the entry as the
// file's would be checked (together with everything else, every problem
// listed), seals it, stores it, audits the change and applies it here;
// the change feed applies it on the other replicas.
func (e *entries) PutEntry(ctx context.Context, by server.Actor, kind, name string, body json.RawMessage, create bool) (server.ConfigEntry, error) {
	if err := e.refuseFile(kind, name); err != nil {
		return server.ConfigEntry{}, err
	}
	if _, err := decodeEntry(kind, name, body); err != nil {
		return server.ConfigEntry{}, invalid(err)
	}
	if err := e.check(ctx, kind, name, body); err != nil {
		return server.ConfigEntry{}, err
	}
	s, err := e.sealer()
	if err != nil {
		return server.ConfigEntry{}, err
	}
	st, err := e.store(ctx)
	if err != nil {
		return server.ConfigEntry{}, err
	}
	en := store.ConfigEntry{Kind: kind, Name: name, Body: view(body), Sealed: s.seal(body, sealAD(kind, name)), UpdatedBy: by.Name}
	action := "add"
	if create {
		en, err = st.CreateConfigEntry(ctx, en)
		if errors.Is(err, store.ErrConflict) {
			err = fmt.Errorf("a %s named %q exists; replace it with set: %w", kind, name, store.ErrConflict)
		}
	} else {
		action = "set"
		en, err = e.update(ctx, st, kind, name, func(cur *store.ConfigEntry) error {
			cur.Body, cur.Sealed, cur.UpdatedBy = en.Body, en.Sealed, by.Name
			return nil
		})
	}
	if err != nil {
		return server.ConfigEntry{}, err
	}
	e.audit(ctx, st, by, action, kind, name, en.Body)
	e.applyHere(ctx)
	return runtimeEntry(en), nil
}

// update applies edit to the stored entry, retrying when another writer
// changed it in between.
func (e *entries) update(ctx context.Context, st store.Store, kind, name string, edit func(*store.ConfigEntry) error) (store.ConfigEntry, error) {
	for {
		cur, err := st.GetConfigEntry(ctx, kind, name)
		if err != nil {
			return store.ConfigEntry{}, err
		}
		if err := edit(&cur); err != nil {
			return store.ConfigEntry{}, err
		}
		out, err := st.UpdateConfigEntry(ctx, cur)
		if errors.Is(err, store.ErrConflict) && ctx.Err() == nil {
			continue
		}
		return out, err
	}
}

// check validates the effective configuration with body as the entry: the
// config package's own validation, which also refuses a name another kind
// uses and names reserved for the built-in tools.
func (e *entries) check(ctx context.Context, kind, name string, body []byte) error {
	cfg, err := e.effective(ctx, e.a.file.Load(), &store.ConfigEntry{Kind: kind, Name: name}, body)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return invalid(err)
	}
	return nil
}

// invalid marks err as the admin's input being wrong; its text lists the
// problems, with the configuration's secret values hidden.
func invalid(err error) error {
	if errors.Is(err, store.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %w", err, store.ErrInvalid)
}

// DeleteEntry implements [server.RuntimeConfig].
func (e *entries) DeleteEntry(ctx context.Context, by server.Actor, kind, name string) error {
	if err := e.refuseFile(kind, name); err != nil {
		return err
	}
	st, err := e.store(ctx)
	if err != nil {
		return err
	}
	if err := st.DeleteConfigEntry(ctx, kind, name); err != nil {
		return err
	}
	e.audit(ctx, st, by, "remove", kind, name, nil)
	e.applyHere(ctx)
	return nil
}

// SetEntryDisabled implements [server.RuntimeConfig].
func (e *entries) SetEntryDisabled(ctx context.Context, by server.Actor, kind, name string, disabled bool) (server.ConfigEntry, error) {
	if kind == store.EntryModel {
		return server.ConfigEntry{}, fmt.Errorf("a model has no disabled state; remove it, or point agents at another model: %w", store.ErrInvalid)
	}
	if err := e.refuseFile(kind, name); err != nil {
		return server.ConfigEntry{}, err
	}
	s, err := e.sealer()
	if err != nil {
		return server.ConfigEntry{}, err
	}
	st, err := e.store(ctx)
	if err != nil {
		return server.ConfigEntry{}, err
	}
	en, err := e.update(ctx, st, kind, name, func(cur *store.ConfigEntry) error {
		plain, err := s.open(cur.Sealed, sealAD(kind, name))
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(plain, &m); err != nil {
			return fmt.Errorf("stored entry %s %q: %w", kind, name, err)
		}
		if disabled {
			m["disabled"] = true
		} else {
			delete(m, "disabled")
		}
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		cur.Body, cur.Sealed, cur.UpdatedBy = view(body), s.seal(body, sealAD(kind, name)), by.Name
		return nil
	})
	if err != nil {
		return server.ConfigEntry{}, err
	}
	action := "enable"
	if disabled {
		action = "disable"
	}
	e.audit(ctx, st, by, action, kind, name, nil)
	e.applyHere(ctx)
	return runtimeEntry(en), nil
}

// audit records the change: who, what (config.<kind>.<action>), on which
// name, and the entry as shown (secret values replaced), never the secrets.
// A failure to audit is logged: the change is made and applied already.
func (e *entries) audit(ctx context.Context, st store.AuditLog, by server.Actor, action, kind, name string, shown json.RawMessage) {
	args, _ := json.Marshal(struct {
		Kind  string          `json:"kind"`
		Name  string          `json:"name"`
		Entry json.RawMessage `json:"entry,omitempty"`
	}{kind, name, shown})
	ctx = context.WithoutCancel(ctx)
	id, err := st.BeginAudit(ctx, store.AuditRecord{User: by.Name, UserID: by.ID, Tool: "config." + kind + "." + action, Server: name, Arguments: args})
	if err == nil {
		err = st.FinishAudit(ctx, id, store.AuditResult{Outcome: store.OutcomeOK})
	}
	if err != nil {
		e.a.logger.Error("auditing a runtime config change", logKeyServer, name, logKeyErr, err)
	}
}

// applyHere applies a change made by this process at once, when it serves;
// a process that only writes the store (the CLI) leaves applying to the
// serving ones.
func (e *entries) applyHere(ctx context.Context) {
	if e.a.svc.Load() != nil {
		e.apply(ctx, e.a.file.Load(), "runtime entry changed")
	}
}

// TestEntry implements [server.RuntimeConfig]: the doctor's checks on the
// MCP server name as configured now (file or runtime), in a process of its
// own; the report passes through the secrets filter, since stderr lines
// and errors may quote them.
func (e *entries) TestEntry(ctx context.Context, kind, name string) (json.RawMessage, error) {
	if kind != store.EntryServer {
		return nil, fmt.Errorf("only MCP servers (kind %q) can be tested; an OpenAPI service is read when it is applied: %w", store.EntryServer, store.ErrInvalid)
	}
	if _, ok := e.a.config().MCPServers[name]; !ok {
		return nil, fmt.Errorf("no MCP server %q is configured: %w", name, store.ErrNotFound)
	}
	reports := e.a.Diagnose(ctx, []string{name})
	if len(reports) == 0 {
		return nil, fmt.Errorf("MCP server %q is disabled; enable it to test it: %w", name, store.ErrConflict)
	}
	b, err := json.Marshal(reports[0])
	if err != nil {
		return nil, err
	}
	out := json.RawMessage(e.a.secrets.Text(string(b)))
	if !json.Valid(out) {
		return nil, fmt.Errorf("the report of %q could not be shown with its secrets hidden; run `switchboard doctor --server %s`", name, name)
	}
	return out, nil
}
