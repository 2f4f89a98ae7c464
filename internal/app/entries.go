package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// setMark is what list and get show for a secret value.
const setMark = "(set)"

// entries is the runtime configuration: MCP servers and OpenAPI services
// admins add through the API or the CLI. They live in the store, sealed;
// the effective configuration is the file plus them (a name in both: the
// file's). It implements [server.RuntimeConfig].
type entries struct {
	a *App
	// mu serialises computing the effective configuration and applying
	// it, so a file reload and an entry change never apply stale halves.
	mu   sync.Mutex
	once sync.Once
	seal *sealer
	err  error
}

var _ server.RuntimeConfig = (*entries)(nil)

// sealer returns the sealer, built on first use. With PostgreSQL the key
// must come from SWITCHBOARD_SECRET_KEY: a key file is per data directory,
// so each replica (and a CLI elsewhere) would make its own, and none
// could open what the others sealed.
func (e *entries) sealer() (*sealer, error) {
	e.once.Do(func() {
		if e.a.cfg.Database.URL != "" && e.a.cfg.SecretKey == "" {
			e.err = fmt.Errorf("entries added at run time need %s with PostgreSQL, the same on every replica and CLI (base64 of 32 bytes: head -c32 /dev/urandom | base64): %w",
				config.SecretKeyEnv, store.ErrInvalid)
			return
		}
		e.seal, e.err = newSealer(e.a.cfg.SecretKey, e.a.cfg.Data)
	})
	return e.seal, e.err
}

func (e *entries) store(ctx context.Context) (store.Store, error) { return e.a.Store(ctx) }

func sealAD(kind, name string) string { return kind + "/" + name }

// decode reads an entry's body as its kind requires.
func decodeEntry(kind, name string, body []byte) (server any, err error) {
	switch kind {
	case store.EntryServer:
		s, err := config.DecodeMCPServer(name, body)
		if err != nil {
			return nil, err
		}
		return RuntimeServerDefaults(s), nil
	case store.EntryOpenAPI:
		return config.DecodeOpenAPIServer(name, body)
	case store.EntryModel:
		return config.DecodeModel(name, body)
	}
	return nil, fmt.Errorf("unknown kind %q; use %q (an MCP server), %q (an OpenAPI service) or %q: %w",
		kind, store.EntryServer, store.EntryOpenAPI, store.EntryModel, store.ErrInvalid)
}

// effective returns file plus the store's entries (those that open and
// decode; the others are logged and left out), and the raw entries.
func (e *entries) effective(ctx context.Context, file *config.Config, extra *store.ConfigEntry, plain []byte) (*config.Config, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	list, err := st.ListConfigEntries(ctx)
	if err != nil {
		return nil, err
	}
	ents := config.Entries{MCPServers: map[string]config.MCPServer{}, OpenAPIServers: map[string]config.OpenAPIServer{}, Models: map[string]config.Model{}}
	add := func(kind, name string, body []byte) error {
		v, err := decodeEntry(kind, name, body)
		if err != nil {
			return err
		}
		// Every env and header value of a runtime entry is promised
		// never to be shown, whatever its name: hide them in status
		// texts and logs too (a server may print its environment).
		switch v := v.(type) {
		case config.MCPServer:
			ents.MCPServers[name] = v
			e.a.secrets.Add(slices.Collect(maps.Values(v.Env))...)
			e.a.secrets.Add(slices.Collect(maps.Values(v.Headers))...)
		case config.OpenAPIServer:
			ents.OpenAPIServers[name] = v
			e.a.secrets.Add(slices.Collect(maps.Values(v.Headers))...)
		case config.Model:
			ents.Models[name] = v
			e.a.secrets.Add(slices.Collect(maps.Values(v.Headers))...)
		}
		return nil
	}
	for _, en := range list {
		if extra != nil && en.Kind == extra.Kind && en.Name == extra.Name {
			continue
		}
		s, err := e.sealer()
		var body []byte
		if err == nil {
			body, err = s.open(en.Sealed, sealAD(en.Kind, en.Name))
		}
		if err == nil {
			err = add(en.Kind, en.Name, body)
		}
		if err != nil {
			e.a.logger.Error("runtime config entry left out", logKeyServer, en.Name, logKeyErr, err)
			continue
		}
		if fromFile(file, en.Kind, en.Name) {
			e.a.logger.Warn("runtime config entry shadowed by the config file, which wins; remove one of them", logKeyServer, en.Name)
		}
	}
	if extra != nil && plain != nil {
		if err := add(extra.Kind, extra.Name, plain); err != nil {
			return nil, fmt.Errorf("%w: %w", err, store.ErrInvalid)
		}
	}
	return file.WithEntries(ents), nil
}

// apply applies the file's configuration plus the store's entries as a
// diff (see [App.Reload]). The file's configuration becomes the base of
// later entry changes.
func (e *entries) apply(ctx context.Context, file *config.Config, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg, err := e.effective(ctx, file, nil, nil)
	if err != nil {
		e.a.logger.Error("reading runtime config entries; applying the file alone", logKeyErr, err)
		cfg = file
	}
	if err := cfg.Validate(); err != nil {
		if file.Validate() != nil {
			e.a.refuse(err)
			return
		}
		// The file is valid, so the stored entries are at fault (two
		// replicas gave one name to two kinds at once): apply the file
		// with those entries that still validate, rather than refuse a
		// good file.
		cfg = e.keepValid(file, cfg)
		e.a.logger.Error("runtime config entries left out: they conflict with the file or each other; fix or remove them",
			logKeyProblems, err.Error())
	}
	e.a.file.Store(file)
	wasRefused := e.a.ConfigProblems() != nil
	diff, err := e.a.Reload(ctx, cfg)
	switch {
	case err != nil:
		e.a.logger.Warn("configuration applied in part", logKeyChanges, diff.String(), logKeyErr, err)
	case !diff.Empty() || wasRefused:
		e.a.logger.Info("configuration applied", logKeyTrigger, why, logKeyChanges, diff.String())
	}
	if len(diff.Restart) > 0 {
		e.a.logger.Warn("configuration changed in settings that apply at the next start of serve",
			logKeyRestart, strings.Join(diff.Restart, ", "))
	}
}

// entryPoll is how often a serving process checks the stored entries for
// changes the feed cannot bring: with SQLite, those another process (the
// CLI) made.
const entryPoll = 2 * time.Second

// keepValid returns file plus each runtime entry of merged that keeps the
// configuration valid, in name order.
func (e *entries) keepValid(file, merged *config.Config) *config.Config {
	out := file.WithEntries(config.Entries{})
	keepEach(out, out.Models, merged.Models, file.HasModel)
	keepEach(out, out.MCPServers, merged.MCPServers, file.HasServer)
	keepEach(out, out.OpenAPIServers, merged.OpenAPIServers, file.HasServer)
	return out
}

// keepEach adds to into, a section of out, each entry of from that the
// file does not name, in name order, unless it makes out invalid.
func keepEach[V any](out *config.Config, into, from map[string]V, inFile func(string) bool) {
	for _, name := range slices.Sorted(maps.Keys(from)) {
		if inFile(name) {
			continue
		}
		into[name] = from[name]
		if out.Validate() != nil {
			delete(into, name)
		}
	}
}

// watch applies the entries again on each change of the config topic,
// made by this process or another replica, and when the poll finds the
// stored entries changed, until ctx ends.
func (e *entries) watch(ctx context.Context, feed store.Changes) {
	changed, stop := feed.Watch(store.TopicConfig, "")
	defer stop()
	tick := time.NewTicker(entryPoll)
	defer tick.Stop()
	last := e.fingerprint(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-tick.C:
			if fp := e.fingerprint(ctx); fp == last {
				continue
			}
		}
		last = e.fingerprint(ctx)
		e.apply(ctx, e.a.file.Load(), "runtime entry changed")
	}
}

// fingerprint names the stored entries and their versions; "" when they
// cannot be read (the next tick tries again).
func (e *entries) fingerprint(ctx context.Context) string {
	st, err := e.store(ctx)
	if err != nil {
		return ""
	}
	list, err := st.ListConfigEntries(ctx)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, en := range list {
		fmt.Fprintf(&b, "%s/%s@%d,%d;", en.Kind, en.Name, en.Version, en.UpdatedAt.UnixNano())
	}
	return b.String()
}

// view renders an entry's body for display: every env and header value,
// bearer token, API key and client secret replaced by setMark, and the
// secret parts of URLs and arguments masked.
func view(body []byte) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return json.RawMessage(`{}`)
	}
	for _, k := range []string{"env", "headers"} {
		if vals, ok := m[k].(map[string]any); ok {
			for n := range vals {
				vals[n] = setMark
			}
		}
	}
	for _, k := range []string{"bearer", "apiKey"} {
		if v, ok := m[k].(string); ok && v != "" {
			m[k] = setMark
		}
	}
	if o, ok := m["oauth"].(map[string]any); ok {
		if v, ok := o["clientSecret"].(string); ok && v != "" {
			o["clientSecret"] = setMark
		}
	}
	for _, k := range []string{"url", "spec"} {
		if u, ok := m[k].(string); ok {
			for _, s := range redact.URLValues(u) {
				if s != "" {
					u = strings.ReplaceAll(u, s, config.Redacted)
				}
			}
			m[k] = u
		}
	}
	if args, ok := m["args"].([]any); ok {
		var strs []string
		for _, a := range args {
			if s, ok := a.(string); ok {
				strs = append(strs, s)
			}
		}
		secret := redact.ArgValues(strs)
		for i, a := range args {
			if s, ok := a.(string); ok && s != "" && slices.Contains(secret, s) {
				args[i] = config.Redacted
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return out
}

// fileView renders a file entry the same way.
func fileView(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return view(b)
}

func runtimeEntry(en store.ConfigEntry) server.ConfigEntry {
	var d struct {
		Disabled bool `json:"disabled"`
	}
	_ = json.Unmarshal(en.Body, &d)
	return server.ConfigEntry{
		Kind: en.Kind, Name: en.Name, Source: store.SourceRuntime, Disabled: d.Disabled, Body: en.Body,
		UpdatedBy: en.UpdatedBy, UpdatedAt: en.UpdatedAt, Version: en.Version,
	}
}

// ListEntries implements [server.RuntimeConfig]: the file's entries, then
// the runtime ones the file does not shadow.
func (e *entries) ListEntries(ctx context.Context) ([]server.ConfigEntry, error) {
	file := e.a.file.Load()
	var out []server.ConfigEntry
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		s := file.MCPServers[name]
		out = append(out, server.ConfigEntry{Kind: store.EntryServer, Name: name, Source: store.SourceConfig, Disabled: s.Disabled, Body: fileView(s)})
	}
	for _, name := range slices.Sorted(maps.Keys(file.OpenAPIServers)) {
		s := file.OpenAPIServers[name]
		out = append(out, server.ConfigEntry{Kind: store.EntryOpenAPI, Name: name, Source: store.SourceConfig, Disabled: s.Disabled, Body: fileView(s)})
	}
	for _, name := range slices.Sorted(maps.Keys(file.Models)) {
		out = append(out, server.ConfigEntry{Kind: store.EntryModel, Name: name, Source: store.SourceConfig, Body: fileView(file.Models[name])})
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	list, err := st.ListConfigEntries(ctx)
	if err != nil {
		return nil, err
	}
	for _, en := range list {
		if !fromFile(file, en.Kind, en.Name) {
			out = append(out, runtimeEntry(en))
		}
	}
	return out, nil
}

// GetEntry implements [server.RuntimeConfig].
func (e *entries) GetEntry(ctx context.Context, kind, name string) (server.ConfigEntry, error) {
	file := e.a.file.Load()
	switch {
	case kind == store.EntryServer && file.MCPServers != nil:
		if s, ok := file.MCPServers[name]; ok {
			return server.ConfigEntry{Kind: kind, Name: name, Source: store.SourceConfig, Disabled: s.Disabled, Body: fileView(s)}, nil
		}
	case kind == store.EntryOpenAPI && file.OpenAPIServers != nil:
		if s, ok := file.OpenAPIServers[name]; ok {
			return server.ConfigEntry{Kind: kind, Name: name, Source: store.SourceConfig, Disabled: s.Disabled, Body: fileView(s)}, nil
		}
	case kind == store.EntryModel && file.Models != nil:
		if m, ok := file.Models[name]; ok {
			return server.ConfigEntry{Kind: kind, Name: name, Source: store.SourceConfig, Body: fileView(m)}, nil
		}
	}
	st, err := e.store(ctx)
	if err != nil {
		return server.ConfigEntry{}, err
	}
	en, err := st.GetConfigEntry(ctx, kind, name)
	if err != nil {
		return server.ConfigEntry{}, err
	}
	return runtimeEntry(en), nil
}

// fromFile reports whether the file has the entry kind/name: servers and
// services share one namespace (tool names are server__tool), models
// have their own.
func fromFile(file *config.Config, kind, name string) bool {
	if kind == store.EntryModel {
		return file.HasModel(name)
	}
	return file.HasServer(name)
}

// refuseFile refuses a change to an entry the file has.
func (e *entries) refuseFile(kind, name string) error {
	file := e.a.file.Load()
	if !fromFile(file, kind, name) {
		return nil
	}
	where := file.Source
	if where == "" {
		where = "the config file"
	}
	return fmt.Errorf("%q is defined in %s; change it there (entries from the file are not changed at run time): %w", name, where, store.ErrConflict)
}
