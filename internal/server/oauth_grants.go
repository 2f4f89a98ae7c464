package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// grantJSON is one OAuth grant as the grants routes show it.
type grantJSON struct {
	ID         string `json:"id"`
	User       string `json:"user"`
	ClientID   string `json:"clientId"`
	ClientName string `json:"clientName"`
	// ClientSource is "registered" or "metadata".
	ClientSource string    `json:"clientSource"`
	Resource     string    `json:"resource"`
	Scopes       []string  `json:"scopes"`
	CreatedAt    time.Time `json:"createdAt"`
}

// grantsOwner is whose grants a grants route acts on: the caller's own,
// or, for an admin, those of the user whose ID is ?user=. Another user's are
// never reachable otherwise: the store matches grant and user together.
func (s *Server) grantsOwner(r *http.Request) (User, error) {
	u := mustUser(r)
	if u.Anonymous || u.ID == "" {
		return User{}, errorf(http.StatusForbidden, "forbidden", "OAuth grants belong to users; the anonymous local user has none")
	}
	id := r.URL.Query().Get("user")
	if id == "" || id == u.ID {
		return u, nil
	}
	if !u.Admin {
		return User{}, errForbiddenAdmin
	}
	other, ok, err := s.users.ByID(r.Context(), id)
	switch {
	case err != nil:
		return User{}, err
	case !ok:
		return User{}, errorf(http.StatusNotFound, "not_found", "no user with ID %q", id)
	}
	return userOf(other), nil
}

// listGrants is GET /api/v1/oauth/grants: the live grants of the caller
// (or, for an admin, of ?user=ID), newest first.
func (s *Server) listGrants() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		owner, err := s.grantsOwner(r)
		if err != nil {
			return err
		}
		gs, err := s.opts.OAuthIssuer.ListOAuthGrants(r.Context(), owner.ID)
		if err != nil {
			return err
		}
		out := make([]grantJSON, 0, len(gs))
		for _, g := range gs {
			j := grantJSON{ID: g.ID, User: owner.Name, ClientID: g.ClientID, Resource: g.Resource, Scopes: g.Scopes, CreatedAt: g.CreatedAt}
			if c, err := s.opts.OAuthIssuer.GetOAuthClient(r.Context(), g.ClientID); err == nil {
				j.ClientName, j.ClientSource = c.Name, string(c.Source)
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if j.Scopes == nil {
				j.Scopes = []string{}
			}
			out = append(out, j)
		}
		writeJSON(w, http.StatusOK, map[string]any{"items": out})
		return nil
	}
}

// revokeGrant is DELETE /api/v1/oauth/grants/{id}: it revokes the
// caller's grant (an admin's: ?user=ID's), refusing every token issued
// from it on every replica at once. Another user's grant is "not found".
func (s *Server) revokeGrant() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		owner, err := s.grantsOwner(r)
		if err != nil {
			return err
		}
		if err := s.opts.OAuthIssuer.RevokeOAuthGrant(r.Context(), owner.ID, r.PathValue("id")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
