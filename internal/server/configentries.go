package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// ConfigEntry is one MCP server, OpenAPI service or model as the
// configuration routes show it: from the file or added at run time, secret values
// replaced by "(set)".
type ConfigEntry struct {
	// Kind is "server" (an MCP server), "openapi" or "model".
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Source is "file" (change it in the file) or "runtime".
	Source   string          `json:"source"`
	Disabled bool            `json:"disabled"`
	Body     json.RawMessage `json:"entry"`
	// UpdatedBy, UpdatedAt and Version are set for runtime entries.
	UpdatedBy string    `json:"updatedBy,omitempty"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	Version   int64     `json:"version,omitempty"`
}

// Actor is who makes a change, for the audit trail.
type Actor struct{ ID, Name string }

// RuntimeConfig manages the MCP servers and OpenAPI services admins add at
// run time; app implements it, applying each change on every replica and
// auditing it. Errors wrap [store.ErrNotFound] (no such entry),
// [store.ErrConflict] (the name is taken, or is the file's) or
// [store.ErrInvalid] (the entry is invalid; the message lists every
// problem and is shown to the admin). Nil makes the routes answer 404.
type RuntimeConfig interface {
	ListEntries(ctx context.Context) ([]ConfigEntry, error)
	GetEntry(ctx context.Context, kind, name string) (ConfigEntry, error)
	// PutEntry creates the entry (create) or replaces a runtime one.
	PutEntry(ctx context.Context, by Actor, kind, name string, body json.RawMessage, create bool) (ConfigEntry, error)
	DeleteEntry(ctx context.Context, by Actor, kind, name string) error
	SetEntryDisabled(ctx context.Context, by Actor, kind, name string, disabled bool) (ConfigEntry, error)
	// TestEntry runs the doctor's checks on the configured MCP server
	// name (start, initialize, list tools, ping) in a process of its own,
	// and returns the report with secrets hidden.
	TestEntry(ctx context.Context, kind, name string) (json.RawMessage, error)
}

func (s *Server) runtimeConfig() (RuntimeConfig, error) {
	if s.opts.Config == nil {
		return nil, errorf(http.StatusNotFound, "not_found", "runtime configuration is not enabled on this server")
	}
	return s.opts.Config, nil
}

// entryError shows the admin why a change was refused: the problems of an
// invalid entry, or why the name cannot be used.
func entryError(err error) error {
	switch {
	case errors.Is(err, store.ErrInvalid):
		return errorf(http.StatusBadRequest, "invalid_entry", "%v", err)
	case errors.Is(err, store.ErrConflict):
		return errorf(http.StatusConflict, "conflict", "%v", err)
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, "not_found", "%v", err)
	}
	return err
}

func actor(r *http.Request) Actor {
	u := mustUser(r)
	return Actor{ID: u.ID, Name: u.Name}
}

func (s *Server) listEntries() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		es, err := c.ListEntries(r.Context())
		if err != nil {
			return entryError(err)
		}
		if es == nil {
			es = []ConfigEntry{}
		}
		writeJSON(w, http.StatusOK, list[ConfigEntry]{Items: es})
		return nil
	}
}

func (s *Server) getEntry() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		e, err := c.GetEntry(r.Context(), r.PathValue("kind"), r.PathValue("name"))
		if err != nil {
			return entryError(err)
		}
		writeJSON(w, http.StatusOK, e)
		return nil
	}
}

// createEntryBody is the body of a create: the name and the entry in the
// file's format.
type createEntryBody struct {
	Name  string          `json:"name"`
	Entry json.RawMessage `json:"entry"`
}

func (s *Server) createEntry() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		var b createEntryBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &b); err != nil {
			return err
		}
		if b.Name == "" || len(b.Entry) == 0 {
			return badRequest(`send {"name": ..., "entry": {...}} with the entry as in the config file`)
		}
		e, err := c.PutEntry(r.Context(), actor(r), r.PathValue("kind"), b.Name, b.Entry, true)
		if err != nil {
			return entryError(err)
		}
		writeJSON(w, http.StatusCreated, e)
		return nil
	}
}

func (s *Server) replaceEntry() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		var body json.RawMessage
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		e, err := c.PutEntry(r.Context(), actor(r), r.PathValue("kind"), r.PathValue("name"), body, false)
		if err != nil {
			return entryError(err)
		}
		writeJSON(w, http.StatusOK, e)
		return nil
	}
}

func (s *Server) deleteEntry() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		if err := c.DeleteEntry(r.Context(), actor(r), r.PathValue("kind"), r.PathValue("name")); err != nil {
			return entryError(err)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

func (s *Server) enableEntry() handlerFunc  { return s.setEntryDisabled(false) }
func (s *Server) disableEntry() handlerFunc { return s.setEntryDisabled(true) }

func (s *Server) setEntryDisabled(disabled bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		e, err := c.SetEntryDisabled(r.Context(), actor(r), r.PathValue("kind"), r.PathValue("name"), disabled)
		if err != nil {
			return entryError(err)
		}
		writeJSON(w, http.StatusOK, e)
		return nil
	}
}

func (s *Server) testEntry() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.runtimeConfig()
		if err != nil {
			return err
		}
		rep, err := c.TestEntry(r.Context(), r.PathValue("kind"), r.PathValue("name"))
		if err != nil {
			return entryError(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(rep)
		return nil
	}
}
