package server

import (
	"context"
	"net/http"
)

// ConnectionsCallbackPath is the path of the redirect URI given to a
// per-user upstream's authorization server: the web UI's page that reads
// the answer from its URL and finishes the authorization through
// POST /api/v1/connections/oauth/callback as the signed-in user.
const ConnectionsCallbackPath = "/connections/oauth/callback"

// AuthorizationCallback is what the authorization server sent the browser
// back with (RFC 6749 section 4.1.2, RFC 9207's iss).
type AuthorizationCallback struct {
	State            string `json:"state"`
	Code             string `json:"code"`
	Iss              string `json:"iss"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// UpstreamAuthorizer connects users to per-user remote MCP servers by
// OAuth with those servers' own authorization servers; app implements it.
// As with [UserConnections], every method takes the user the request
// authenticated. Errors wrap store.ErrNotFound (no such server, or no
// pending authorization of this user's for the state) or store.ErrInvalid
// (the authorization server refused, the code did not exchange); the
// messages are shown to the user and never hold a token.
type UpstreamAuthorizer interface {
	// BeginAuthorization returns the URL to send the user's browser to;
	// the answer comes back to redirectURL.
	BeginAuthorization(ctx context.Context, userID, server, redirectURL string) (string, error)
	// FinishAuthorization exchanges the answer of an authorization userID
	// began and stores the token as their credential for its server.
	FinishAuthorization(ctx context.Context, userID string, cb AuthorizationCallback) (Connection, error)
}

// authorizeAnswer is the body of POST /api/v1/connections/{server}/authorize.
type authorizeAnswer struct {
	AuthorizationURL string `json:"authorizationURL"`
}

func (s *Server) upstreamAuthorizer(r *http.Request) (UpstreamAuthorizer, User, error) {
	if s.opts.UpstreamAuth == nil {
		return nil, User{}, errorf(http.StatusNotFound, "not_found", "signing in to upstream servers is not enabled on this server")
	}
	_, u, err := s.userConnections(r)
	if err != nil {
		return nil, User{}, err
	}
	return s.opts.UpstreamAuth, u, nil
}

func (s *Server) authorizeConnection() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, u, err := s.upstreamAuthorizer(r)
		if err != nil {
			return err
		}
		base := s.baseURL(r)
		if base == "" {
			return errNoPublicURL
		}
		to, err := a.BeginAuthorization(r.Context(), u.ID, r.PathValue("server"), base+ConnectionsCallbackPath)
		if err != nil {
			return connectionError(err)
		}
		writeJSON(w, http.StatusOK, authorizeAnswer{AuthorizationURL: to})
		return nil
	}
}

func (s *Server) finishConnection() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, u, err := s.upstreamAuthorizer(r)
		if err != nil {
			return err
		}
		var cb AuthorizationCallback
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &cb); err != nil {
			return err
		}
		conn, err := a.FinishAuthorization(r.Context(), u.ID, cb)
		if err != nil {
			return connectionError(err)
		}
		writeJSON(w, http.StatusOK, conn)
		return nil
	}
}
