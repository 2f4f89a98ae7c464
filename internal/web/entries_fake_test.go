package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// runtimeConfig is a hand-written [server.RuntimeConfig]: one file entry
// ("notes") and the runtime entries added to it, checked as app checks
// them in spirit: a name the file has is refused, and an entry needs
// either command or url, not both, each problem listed.
type runtimeConfig struct {
	mu      sync.Mutex
	entries map[string]server.ConfigEntry
}

func newRuntimeConfig() *runtimeConfig {
	return &runtimeConfig{entries: map[string]server.ConfigEntry{
		"server/notes": {Kind: "server", Name: "notes", Source: "file", Body: json.RawMessage(`{"command":"notes-mcp"}`)},
	}}
}

func (c *runtimeConfig) ListEntries(context.Context) ([]server.ConfigEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []server.ConfigEntry
	for _, e := range c.entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind+out[i].Name < out[j].Kind+out[j].Name })
	return out, nil
}

func (c *runtimeConfig) GetEntry(_ context.Context, kind, name string) (server.ConfigEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[kind+"/"+name]
	if !ok {
		return e, fmt.Errorf("no %s %q: %w", kind, name, store.ErrNotFound)
	}
	return e, nil
}

func (c *runtimeConfig) PutEntry(_ context.Context, by server.Actor, kind, name string, body json.RawMessage, create bool) (server.ConfigEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.entries[kind+"/"+name]; ok && (create || cur.Source == "file") {
		return cur, fmt.Errorf("%q exists (source %s): %w", name, cur.Source, store.ErrConflict)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return server.ConfigEntry{}, fmt.Errorf("%v: %w", err, store.ErrInvalid)
	}
	var problems []error
	if name == "" {
		problems = append(problems, errors.New("name: a server name must not be empty"))
	}
	_, cmd := m["command"]
	_, url := m["url"]
	switch {
	case cmd && url:
		problems = append(problems, fmt.Errorf("mcpServers.%s: set either command or url, not both", name))
	case !cmd && !url:
		problems = append(problems, fmt.Errorf("mcpServers.%s: set command to run a local server or url to reach a remote one", name))
	}
	if len(problems) > 0 {
		return server.ConfigEntry{}, fmt.Errorf("%w: %w", errors.Join(problems...), store.ErrInvalid)
	}
	if env, ok := m["env"].(map[string]any); ok {
		for k := range env {
			env[k] = "(set)"
		}
	}
	shown, _ := json.Marshal(m)
	e := server.ConfigEntry{Kind: kind, Name: name, Source: "runtime", Body: shown, UpdatedBy: by.Name, UpdatedAt: time.Now(), Version: 1}
	c.entries[kind+"/"+name] = e
	return e, nil
}

func (c *runtimeConfig) DeleteEntry(_ context.Context, _ server.Actor, kind, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[kind+"/"+name]
	switch {
	case !ok:
		return fmt.Errorf("no %s %q: %w", kind, name, store.ErrNotFound)
	case e.Source == "file":
		return fmt.Errorf("%q is the file's: %w", name, store.ErrConflict)
	}
	delete(c.entries, kind+"/"+name)
	return nil
}

func (c *runtimeConfig) SetEntryDisabled(_ context.Context, _ server.Actor, kind, name string, disabled bool) (server.ConfigEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[kind+"/"+name]
	if !ok || e.Source == "file" {
		return e, fmt.Errorf("no runtime %s %q: %w", kind, name, store.ErrNotFound)
	}
	e.Disabled = disabled
	c.entries[kind+"/"+name] = e
	return e, nil
}

// TestEntry reports like the doctor: a server whose command is
// "mcp-files" passes, any other fails at its first step.
func (c *runtimeConfig) TestEntry(_ context.Context, kind, name string) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[kind+"/"+name]
	if !ok {
		return nil, fmt.Errorf("no %s %q: %w", kind, name, store.ErrNotFound)
	}
	var m struct{ Command string }
	_ = json.Unmarshal(e.Body, &m)
	if m.Command == "mcp-files" {
		return json.RawMessage(`{"OK":true,"Steps":[{"Name":"start","OK":true,"Detail":"pid 42"},{"Name":"tools","OK":true,"Detail":"2 tools"}]}`), nil
	}
	return json.RawMessage(`{"OK":false,"Steps":[{"Name":"command","OK":false,"Err":"` + m.Command + ` not found on PATH","Hint":"install it"}]}`), nil
}
