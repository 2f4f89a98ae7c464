package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// Ops of a [ConfigChange].
const (
	OpAdded   = "added"
	OpRemoved = "removed"
	OpChanged = "changed"
)

// ConfigChange is one entry a reload adds, removes or changes.
type ConfigChange struct {
	Kind string `json:"kind"` // KindMCPServers, KindOpenAPIServers, KindModels or KindAgents
	Name string `json:"name"`
	Op   string `json:"op"`
	// Runtime marks an entry the store holds (added by an admin at run
	// time), not the file: only `config check` sets it.
	Runtime bool `json:"runtime,omitempty"`
}

// ConfigDiff is what applying one configuration over another changes.
type ConfigDiff struct {
	// Changes are the entries a reload applies, by kind and name.
	Changes []ConfigChange `json:"changes"`
	// Restart lists the changed top-level settings (server, database,
	// data, ...) that take effect only when serve starts again.
	Restart []string `json:"restart,omitempty"`
	// Runtime lists, as "kind.name", the store's entries of the running
	// configuration that a reload keeps: the file does not name them, so
	// an edit of it leaves them running. Only `config check` sets it.
	Runtime []string `json:"runtime,omitempty"`
	// changedSettings are all the changed top-level settings, live ones
	// included: Reload applies these.
	changedSettings []string
}

// Empty reports whether the two configurations are the same.
func (d ConfigDiff) Empty() bool { return len(d.Changes) == 0 && len(d.Restart) == 0 }

// String lists the changes one a line: "+ mcpServers.files" (added),
// "- ..." (removed), "~ ..." (changed), "! limits (takes effect at the next
// start)"; "no changes" when there are none.
func (d ConfigDiff) String() string {
	if d.Empty() {
		return "no changes"
	}
	var b strings.Builder
	for _, c := range d.Changes {
		mark := map[string]string{OpAdded: "+", OpRemoved: "-", OpChanged: "~"}[c.Op]
		fmt.Fprintf(&b, "%s %s.%s", mark, c.Kind, c.Name)
		if c.Runtime {
			b.WriteString(" (a runtime entry: the file's entry of this name replaces it)")
		}
		b.WriteByte('\n')
	}
	for _, s := range d.Restart {
		fmt.Fprintf(&b, "! %s (takes effect at the next start of serve)\n", s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// DiffDigests compares the digests of two configurations.
func DiffDigests(old, next Digests) ConfigDiff {
	var d ConfigDiff
	for _, kind := range []string{KindMCPServers, KindOpenAPIServers, KindModels, KindAgents} {
		names := slices.Sorted(maps.Keys(old[kind]))
		for n := range maps.Keys(next[kind]) {
			if _, ok := old[kind][n]; !ok {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		for _, n := range names {
			o, inOld := old[kind][n]
			x, inNext := next[kind][n]
			switch {
			case !inOld:
				d.Changes = append(d.Changes, ConfigChange{Kind: kind, Name: n, Op: OpAdded})
			case !inNext:
				d.Changes = append(d.Changes, ConfigChange{Kind: kind, Name: n, Op: OpRemoved})
			case o != x:
				d.Changes = append(d.Changes, ConfigChange{Kind: kind, Name: n, Op: OpChanged})
			}
		}
	}
	for _, s := range slices.Sorted(maps.Keys(next[KindSettings])) {
		if old[KindSettings][s] == next[KindSettings][s] {
			continue
		}
		d.changedSettings = append(d.changedSettings, s)
		if !slices.Contains(liveSettings, s) {
			d.Restart = append(d.Restart, s)
		}
	}
	return d
}

// appliedFile, in the data directory, holds the digests of the
// configuration the running serve applied last, for `config check`.
const appliedFile = "config-applied.json"

// applied is the content of appliedFile. Digests are SHA-256 hashes of
// each entry (see [digest]); no value of the configuration is stored.
type applied struct {
	At      time.Time `json:"at"`
	PID     int       `json:"pid"`
	Digests Digests   `json:"digests"`
	// Runtime names, by kind, the entries of Digests that came from the
	// store rather than the file: a reload reads them from the store
	// again, so an edit of the file does not remove them.
	Runtime map[string][]string `json:"runtime,omitempty"`
}

// runtimeNames returns, by kind, the MCP servers, OpenAPI services and
// models that cfg (the file plus the store's entries) has and file lacks.
// A nil file (an App not following one) has none.
func runtimeNames(file, cfg *config.Config) map[string][]string {
	if file == nil {
		return nil
	}
	out := map[string][]string{}
	extra := func(kind string, names []string, inFile func(string) bool) {
		for _, n := range names {
			if !inFile(n) {
				out[kind] = append(out[kind], n)
			}
		}
	}
	extra(KindMCPServers, slices.Sorted(maps.Keys(cfg.MCPServers)), file.HasServer)
	extra(KindOpenAPIServers, slices.Sorted(maps.Keys(cfg.OpenAPIServers)), file.HasServer)
	extra(KindModels, slices.Sorted(maps.Keys(cfg.Models)), file.HasModel)
	if len(out) == 0 {
		return nil
	}
	return out
}

// recordApplied writes d to the data directory, replacing the file whole
// so that a reader never sees half of it.
func recordApplied(dataDir string, d Digests, runtime map[string][]string) error {
	if dataDir == "" {
		return nil
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(applied{At: time.Now().UTC(), PID: os.Getpid(), Digests: d, Runtime: runtime}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dataDir, appliedFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dataDir, appliedFile))
}

// ErrNothingApplied reports that no serve has recorded an applied
// configuration in the data directory.
var ErrNothingApplied = errors.New("no running serve has recorded its configuration in this data directory")

// PendingChanges compares cfg with the configuration the serve using the
// same data directory applied last (as it recorded at start and at each
// reload) and returns what a reload to cfg would change, and when that
// configuration was applied. It returns [ErrNothingApplied] when nothing
// was recorded. The record outlives the serve that wrote it; the caller
// tells the user when it was made.
//
// The store's entries (added at run time) are part of the running
// configuration: a reload reads them again, so the comparison adds those
// the record names to cfg, unless cfg's file names them now (the file
// wins); they are listed in [ConfigDiff.Runtime] and their changes marked.
func PendingChanges(cfg *config.Config) (ConfigDiff, time.Time, error) {
	b, err := os.ReadFile(filepath.Join(cfg.Data, appliedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return ConfigDiff{}, time.Time{}, ErrNothingApplied
	}
	if err != nil {
		return ConfigDiff{}, time.Time{}, fmt.Errorf("reading the applied configuration: %w", err)
	}
	var rec applied
	if err := json.Unmarshal(b, &rec); err != nil {
		return ConfigDiff{}, time.Time{}, fmt.Errorf("reading %s: %w; it is rewritten by the next start or reload of serve", appliedFile, err)
	}
	next := digests(cfg)
	isRuntime := map[string]bool{}
	for kind, names := range rec.Runtime {
		for _, n := range names {
			isRuntime[kind+"."+n] = true
			d, ok := rec.Digests[kind][n]
			if !ok || next[kind] == nil || inFile(cfg, kind, n) {
				continue
			}
			next[kind][n] = d
		}
	}
	diff := DiffDigests(rec.Digests, next)
	for i, c := range diff.Changes {
		diff.Changes[i].Runtime = isRuntime[c.Kind+"."+c.Name]
	}
	for kind, names := range rec.Runtime {
		for _, n := range names {
			if !inFile(cfg, kind, n) {
				diff.Runtime = append(diff.Runtime, kind+"."+n)
			}
		}
	}
	slices.Sort(diff.Runtime)
	return diff, rec.At, nil
}

// inFile reports whether cfg names an entry of kind called name, disabled
// or not.
func inFile(cfg *config.Config, kind, name string) bool {
	if kind == KindModels {
		return cfg.HasModel(name)
	}
	return cfg.HasServer(name)
}
