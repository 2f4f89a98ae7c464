package app

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/server"
)

// The runtime configuration for the CLI (`switchboard servers add|set|rm|
// enable|disable|entries`), which writes the store directly as `users`
// does: a running serve applies the change through the change feed (with
// SQLite in another process, at its next check of the entries). by names
// who made the change in the audit trail.

// ConfigEntries lists the MCP servers and OpenAPI services: the file's,
// then those added at run time, secret values shown as "(set)".
func (a *App) ConfigEntries(ctx context.Context) ([]server.ConfigEntry, error) {
	return a.entries.ListEntries(ctx)
}

// PutConfigEntry adds (create) or replaces the runtime entry kind/name
// with body, the entry as the config file would have it (JSON).
func (a *App) PutConfigEntry(ctx context.Context, by, kind, name string, body []byte, create bool) (server.ConfigEntry, error) {
	return a.entries.PutEntry(ctx, server.Actor{Name: by}, kind, name, body, create)
}

// RemoveConfigEntry removes the runtime entry kind/name.
func (a *App) RemoveConfigEntry(ctx context.Context, by, kind, name string) error {
	return a.entries.DeleteEntry(ctx, server.Actor{Name: by}, kind, name)
}

// SetConfigEntryDisabled disables or enables the runtime entry kind/name.
func (a *App) SetConfigEntryDisabled(ctx context.Context, by, kind, name string, disabled bool) (server.ConfigEntry, error) {
	return a.entries.SetEntryDisabled(ctx, server.Actor{Name: by}, kind, name, disabled)
}
