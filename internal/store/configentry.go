package store

import (
	"context"
	"encoding/json"
	"time"
)

// Kinds of [ConfigEntry]: the parts of the configuration admins add at run
// time (agents have their own records, [Agent], with SourceRuntime).
const (
	// EntryServer is an MCP server (stdio, HTTP or SSE): an entry of the
	// file's mcpServers.
	EntryServer = "server"
	// EntryOpenAPI is an OpenAPI service: an entry of openapiServers.
	EntryOpenAPI = "openapi"
	// EntryModel is a language model endpoint: an entry of models.
	EntryModel = "model"
)

// ConfigEntry is one entry of the configuration an admin added at run time
// (through the API, the CLI or the web UI) rather than in the file. The
// store keeps two forms: Body, what may be shown (secret values replaced),
// and Sealed, the whole entry encrypted by app; the store never sees a key
// and never decrypts.
type ConfigEntry struct {
	// Kind is EntryServer, EntryOpenAPI or EntryModel; Name is unique
	// within a kind.
	Kind string
	Name string
	// Body is the entry as JSON, in the file's format, with every secret
	// value replaced: what list and get show.
	Body json.RawMessage
	// Sealed is the whole entry, secrets included, encrypted.
	Sealed []byte
	// UpdatedBy names the user who made the last change.
	UpdatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Version is 1 after CreateConfigEntry and grows by one with every
	// change; UpdateConfigEntry needs the current one.
	Version int64
}

// Validate reports whether e can be stored, as an [ErrInvalid] error.
func (e *ConfigEntry) Validate() error {
	switch e.Kind {
	case EntryServer, EntryOpenAPI, EntryModel:
	default:
		return invalidf("config entry %q: kind %q is none of %q, %q and %q", e.Name, e.Kind, EntryServer, EntryOpenAPI, EntryModel)
	}
	if e.Name == "" {
		return invalidf("config entry name is empty")
	}
	if !json.Valid(e.Body) {
		return invalidf("config entry %s %q: body is not JSON", e.Kind, e.Name)
	}
	if len(e.Sealed) == 0 {
		return invalidf("config entry %s %q: sealed form is empty", e.Kind, e.Name)
	}
	return nil
}

// ConfigEntries keeps the configuration entries added at run time. Every
// write announces [TopicConfig] on the change feed, so that each replica
// applies it.
type ConfigEntries interface {
	// CreateConfigEntry stores e with Version 1 and CreatedAt = UpdatedAt =
	// now, and returns it. ErrConflict if the kind already has the name.
	CreateConfigEntry(ctx context.Context, e ConfigEntry) (ConfigEntry, error)
	// GetConfigEntry returns the entry, or ErrNotFound.
	GetConfigEntry(ctx context.Context, kind, name string) (ConfigEntry, error)
	// ListConfigEntries returns every entry ordered by kind, then name.
	ListConfigEntries(ctx context.Context) ([]ConfigEntry, error)
	// UpdateConfigEntry replaces the entry's Body, Sealed and UpdatedBy if
	// e.Version is the stored Version, and returns it with Version+1.
	// ErrConflict when e.Version is stale; ErrNotFound if there is none.
	UpdateConfigEntry(ctx context.Context, e ConfigEntry) (ConfigEntry, error)
	// DeleteConfigEntry deletes the entry, or returns ErrNotFound.
	DeleteConfigEntry(ctx context.Context, kind, name string) error
}
