package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Connection is one per-user upstream as its user sees it: whether they
// have connected their credential and since when. The credential itself is
// never part of it: nothing shows it back.
type Connection struct {
	// Server names the MCP server or OpenAPI service; Kind is "server" or
	// "openapi".
	Server string `json:"server"`
	Kind   string `json:"kind"`
	// Takes says what the user supplies: "header X-Api-Key", "bearer
	// token", "env NOTES_TOKEN".
	Takes     string `json:"takes"`
	Connected bool   `json:"connected"`
	// OAuth says the user connects by signing in to the server's own
	// authorization server (POST .../{server}/authorize) rather than by
	// entering a value. Reconnect, when set, says why their sign-in can no
	// longer be used and they must connect again.
	OAuth     bool      `json:"oauth,omitempty"`
	Reconnect string    `json:"reconnect,omitempty"`
	Since     time.Time `json:"since,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// UserConnections keeps each user's own credentials for per-user
// upstreams; app implements it. Every method takes the user the request
// authenticated, never one the request names, so no route reads, replaces
// or deletes another user's credential. Errors wrap [store.ErrNotFound]
// (no such per-user upstream, or nothing connected) or [store.ErrInvalid]
// (an empty value); the messages are shown to the user.
type UserConnections interface {
	ListConnections(ctx context.Context, userID string) ([]Connection, error)
	Connect(ctx context.Context, userID, server, value string) (Connection, error)
	Disconnect(ctx context.Context, userID, server string) error
}

func (s *Server) userConnections(r *http.Request) (UserConnections, User, error) {
	if s.opts.Connections == nil {
		return nil, User{}, errorf(http.StatusNotFound, "not_found", "per-user credentials are not enabled on this server")
	}
	u := mustUser(r)
	if u.ID == "" {
		return nil, User{}, errorf(http.StatusForbidden, "forbidden",
			"the anonymous local user has no credentials of its own; create a user (switchboard users add) and use its key")
	}
	return s.opts.Connections, u, nil
}

func connectionError(err error) error {
	switch {
	case errors.Is(err, store.ErrInvalid):
		return errorf(http.StatusBadRequest, "invalid", "%v", err)
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, "not_found", "%v", err)
	}
	return err
}

func (s *Server) listConnections() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, u, err := s.userConnections(r)
		if err != nil {
			return err
		}
		cs, err := c.ListConnections(r.Context(), u.ID)
		if err != nil {
			return connectionError(err)
		}
		if cs == nil {
			cs = []Connection{}
		}
		writeJSON(w, http.StatusOK, list[Connection]{Items: cs})
		return nil
	}
}

// connectBody is the body of PUT /api/v1/connections/{server}.
type connectBody struct {
	Value string `json:"value"`
}

func (s *Server) connect() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, u, err := s.userConnections(r)
		if err != nil {
			return err
		}
		var b connectBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &b); err != nil {
			return err
		}
		if b.Value == "" {
			return badRequest(`send {"value": "..."}: the token or header value this server takes`)
		}
		conn, err := c.Connect(r.Context(), u.ID, r.PathValue("server"), b.Value)
		if err != nil {
			return connectionError(err)
		}
		writeJSON(w, http.StatusOK, conn)
		return nil
	}
}

func (s *Server) disconnect() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, u, err := s.userConnections(r)
		if err != nil {
			return err
		}
		if err := c.Disconnect(r.Context(), u.ID, r.PathValue("server")); err != nil {
			return connectionError(err)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
