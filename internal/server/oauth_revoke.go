package server

import (
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// maxRevokeBytes bounds a revocation request body (a form with a token).
const maxRevokeBytes = 4 << 10

// revoke is RFC 7009 token revocation. Clients are public, so holding
// the token is the only proof there is; whoever holds it could use it
// anyway, so letting them end it gives nothing away. Revoking an access
// or refresh token revokes its whole grant (every token from the same
// consent). An unknown, expired or already revoked token is answered 200
// like a revoked one (section 2.2), so the answer says nothing about it.
func (s *Server) revoke() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		rv := s.opts.OAuthIssuer
		secret, ok := revokeToken(w, r)
		if !ok {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "send token=... as application/x-www-form-urlencoded (RFC 7009)")
			return nil
		}
		var g store.OAuthGrant
		var err error
		switch kind, _ := oauth.KindOf(secret); kind {
		case oauth.KindAccess:
			_, g, err = s.opts.OAuth.OAuthAccess(r.Context(), oauth.Hash(secret))
		case oauth.KindRefresh:
			// Redeeming it marks it used; the grant is revoked next, so
			// nothing issued from it survives either way. A refresh token
			// used before revokes the grant itself (ErrReplayed).
			_, g, err = rv.UseOAuthToken(r.Context(), oauth.Hash(secret), store.OAuthRefresh)
		default:
			err = store.ErrNotFound
		}
		switch {
		case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrReplayed):
		case err != nil:
			return err
		default:
			if err := rv.RevokeOAuthGrant(r.Context(), g.UserID, g.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		return nil
	}
}

// revokeToken returns the token of a revocation request's form, and
// whether there is one in a form that parses within the size limit.
func revokeToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRevokeBytes)
	if r.ParseForm() != nil {
		return "", false
	}
	t := r.PostForm.Get("token")
	return t, t != ""
}
