package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// OAuthTokens is what accepting OAuth access tokens reads: the token and
// its grant, from the database on every request, so that a grant revoked
// on any replica is refused at once. Every [store.Store] implements it.
// Registering clients (POST /oauth/register) stores them.
type OAuthTokens interface {
	OAuthAccess(ctx context.Context, hash string) (store.OAuthToken, store.OAuthGrant, error)
	PutOAuthClient(ctx context.Context, c store.OAuthClient) error
}

var errInvalidToken = &Error{
	Status: http.StatusUnauthorized, Code: "invalid_token",
	Msg: "the OAuth access token is unknown, expired, revoked or for another resource: sign in again through your MCP client",
}

// authenticateToken returns the user an OAuth access token acts for at
// the resource the route pattern is served as. The token's grant must be
// for exactly that resource (RFC 8707: a token for /mcp is not one for
// the REST API), and the user's permissions are their current ones, not
// a copy taken at consent. Codes and refresh tokens are no bearer.
func (s *Server) authenticateToken(r *http.Request, secret, pattern string) (User, error) {
	if kind, _ := oauth.KindOf(secret); kind != oauth.KindAccess || !s.oauthOn() {
		return User{}, errInvalidToken
	}
	base := s.baseURL(r)
	if base == "" {
		// Without a known name for the resource served, no audience can
		// be checked, so no token is accepted.
		return User{}, errInvalidToken
	}
	served, err := oauth.CanonicalResource(resourceOf(base, pattern))
	if err != nil {
		return User{}, errInvalidToken
	}
	_, g, err := s.opts.OAuth.OAuthAccess(r.Context(), oauth.Hash(secret))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return User{}, errInvalidToken
	case err != nil:
		return User{}, err
	case !oauth.Audience(g.Resource, served):
		return User{}, errInvalidToken
	}
	u, ok, err := s.users.ByID(r.Context(), g.UserID)
	switch {
	case err != nil:
		return User{}, err
	case !ok:
		return User{}, errInvalidToken
	case u.Disabled:
		return User{}, errDisabled
	}
	user := userOf(u)
	user.OAuthClient = g.ClientID
	return user, nil
}
