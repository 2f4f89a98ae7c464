package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi"
)

// Reload applies cfg, which must have passed Validate, as a diff against
// the configuration applied last, and returns what changed:
//
//   - MCP servers: added ones start, removed ones stop (tools withdrawn,
//     processes ended), changed ones restart; the others, their processes
//     and the calls on them go on untouched ([mcphost.Pool.Apply]).
//   - OpenAPI services: removed and changed ones leave the catalogue,
//     added and changed ones are read anew.
//   - models: changed and added ones get a new client; each turn resolves
//     its model when it starts, so a turn in flight keeps the one it had.
//   - the assistant: runs that start from now on use the new one;
//   - approvals, limits and rateLimits: calls decided and turns started
//     from now on use the new ones; a turn in flight keeps its limits;
//   - agents: changed and added ones are written to the store from the
//     file, removed ones that came from the file are deleted; each turn
//     reads its agent when it starts.
//
// Tools that appear or go away reach the registry, and from there /mcp
// sessions as notifications/tools/list_changed and the next model turn.
// Changed settings in [ConfigDiff.Restart] take effect at the next start;
// Reload leaves them as they were and says so in the log. A successful
// Reload clears the problems of a refused edit ([App.ConfigProblems]) and
// records what it applied in the data directory for `config check`.
func (a *App) Reload(ctx context.Context, cfg *config.Config) (ConfigDiff, error) {
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	old := a.config()
	a.secrets.Add(cfg.SecretValues()...) // the status texts of new servers hide their secrets
	next := digests(cfg)
	diff := DiffDigests(digests(old), next)
	changed := func(kind string) map[string]bool {
		m := map[string]bool{}
		for _, c := range diff.Changes {
			if c.Kind == kind {
				m[c.Name] = true
			}
		}
		return m
	}

	a.modelsMu.Lock()
	if a.modelsOK {
		a.models = a.buildModelsLocked(cfg, changed(KindModels))
	}
	a.modelsMu.Unlock()
	a.live.Store(cfg)
	// Calls decided and turns started from now on use the new approval
	// policy, rate limits and agent limits; those in flight keep theirs.
	a.applyPolicies(cfg)
	var errs []error
	if slices.Contains(diff.changedSettings, "assistant") {
		// The runtime is built with the first configuration; Runtime
		// builds it now if need be, so the new assistant always lands.
		if rt, err := a.Runtime(ctx); err == nil {
			rt.SetAssistant(store.Agent{Model: cfg.Assistant.Model, Prompt: cfg.Assistant.Prompt, Router: cfg.Assistant.Router})
		} else {
			errs = append(errs, fmt.Errorf("applying the assistant: %w", err))
		}
	}
	if err := a.reloadAgents(ctx, cfg, old, changed(KindAgents)); err != nil {
		errs = append(errs, err)
	}
	var (
		wg     sync.WaitGroup
		mcpErr error
	)
	wg.Go(func() {
		// The pool compares each server's resolved configuration itself,
		// so a changed default (roots, sandbox) restarts exactly the
		// servers it changes.
		if _, err := a.pool.Apply(ctx, mcpServers(cfg, a.only)); err != nil {
			mcpErr = fmt.Errorf("applying mcp servers: %w", err)
		}
	})
	wg.Go(func() { a.reloadOpenAPI(ctx, cfg, changed(KindOpenAPIServers)) })
	wg.Wait()
	errs = append(errs, mcpErr)

	a.problems.Store(nil)
	if err := recordApplied(a.cfg.Data, next, runtimeNames(a.file.Load(), cfg)); err != nil {
		a.logger.Warn("recording the applied configuration for `config check`", logKeyErr, err)
	}
	return diff, errors.Join(errs...)
}

// reloadOpenAPI replaces the OpenAPI services in changed (added, removed
// or changed names) and reads the new ones.
func (a *App) reloadOpenAPI(ctx context.Context, cfg *config.Config, changed map[string]bool) {
	var fresh, gone []*openapi.Server
	a.openapiMu.Lock()
	kept := slices.DeleteFunc(slices.Clone(a.openapi), func(s *openapi.Server) bool { return changed[s.Name()] })
	for _, s := range a.openapi {
		if changed[s.Name()] {
			gone = append(gone, s)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(changed)) {
		sc, ok := cfg.OpenAPIServers[name]
		if !ok || sc.Disabled || !selected(a.only, name) {
			continue
		}
		s := a.newOpenAPI(name, sc)
		fresh = append(fresh, s)
		kept = append(kept, s)
	}
	slices.SortFunc(kept, func(x, y *openapi.Server) int { return strings.Compare(x.Name(), y.Name()) })
	a.openapi = kept
	a.openapiMu.Unlock()
	// Outside the lock (the registry asks the pinner, which may read the
	// store). A gone service publishes nothing more: its OnChange finds it
	// no longer listed. Its successor loads only after this.
	for _, s := range gone {
		a.registry.Set(tools.Source{Kind: tools.KindOpenAPI, Server: s.Name()}, nil)
	}
	var wg sync.WaitGroup
	for _, s := range fresh {
		wg.Go(func() {
			if err := s.Load(ctx); err != nil {
				a.logger.Warn("openapi server unavailable", logKeyServer, s.Name(), logKeyErr, err)
			}
		})
	}
	wg.Wait()
}

// reloadAgents writes the file's changed and added agents to the store and
// deletes the removed ones the file had put there. Without an open store
// there is nothing to do: opening it seeds the agents of the configuration
// applied last.
func (a *App) reloadAgents(ctx context.Context, cfg, old *config.Config, changed map[string]bool) error {
	a.storeMu.Lock()
	st := a.store
	a.storeMu.Unlock()
	if st == nil || len(changed) == 0 {
		return nil
	}
	write := map[string]config.Agent{}
	var errs []error
	for name := range changed {
		if ag, ok := cfg.Agents[name]; ok {
			write[name] = ag
			continue
		}
		if _, was := old.Agents[name]; !was {
			continue
		}
		cur, err := st.GetAgent(ctx, name)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			errs = append(errs, fmt.Errorf("reading agent %s: %w", name, err))
		case cur.Source == store.SourceConfig:
			// An agent an admin made at run time under the same name
			// is not the file's to delete.
			if err := st.DeleteAgent(ctx, name); err != nil && !errors.Is(err, store.ErrNotFound) {
				errs = append(errs, fmt.Errorf("deleting agent %s removed from the config: %w", name, err))
			}
		}
	}
	if err := seedAgents(ctx, st, write, true); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ConfigProblems lists why the last edit of the configuration was
// refused, one problem a line as Validate reported it; nil when the last
// edit was applied (or none was made).
func (a *App) ConfigProblems() []string {
	if p := a.problems.Load(); p != nil {
		return *p
	}
	return nil
}

// refuse records that an edit was refused because of err and logs it; the
// running configuration stays.
func (a *App) refuse(err error) {
	var lines []string
	for l := range strings.SplitSeq(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	a.problems.Store(&lines)
	a.logger.Error("configuration edit refused; the running configuration stays: fix the file and save it again",
		logKeyProblems, strings.Join(lines, "; "))
}
