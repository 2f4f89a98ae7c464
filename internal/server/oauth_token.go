package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// maxTokenRequestBytes bounds a token request body (a small form).
const maxTokenRequestBytes = 8 << 10

// tokenResponse is the successful token response (RFC 6749 section 5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
}

// tokenRefusal is an OAuth error of the token endpoint (RFC 6749 section
// 5.2). After a failed redemption the grant may be revoked already.
type tokenRefusal struct {
	status int
	code   string
	desc   string
}

func (e *tokenRefusal) Error() string { return e.code + ": " + e.desc }

func invalidGrant(format string, args ...any) *tokenRefusal {
	return &tokenRefusal{http.StatusBadRequest, "invalid_grant", fmt.Sprintf(format, args...)}
}

// token is POST /oauth/token: the authorization_code and refresh_token
// grants for public clients (no secret; PKCE and rotation protect them).
func (s *Server) token() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		if !readTokenForm(w, r) {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "send the token request as application/x-www-form-urlencoded of at most 8 KiB")
			return nil
		}
		for k, v := range r.PostForm {
			if len(v) > 1 {
				writeOAuthError(w, http.StatusBadRequest, "invalid_request", k+" appears more than once")
				return nil
			}
		}
		f := r.PostForm
		var (
			resp tokenResponse
			err  error
		)
		switch f.Get("grant_type") {
		case "authorization_code":
			resp, err = s.redeemCode(r)
		case "refresh_token":
			resp, err = s.refresh(r)
		default:
			writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
			return nil
		}
		var refusal *tokenRefusal
		switch {
		case errors.As(err, &refusal):
			s.log(r.Context()).DebugContext(r.Context(), "token request refused", logKeyErr, err)
			writeOAuthError(w, refusal.status, refusal.code, refusal.desc)
			return nil
		case err != nil:
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
}

// readTokenForm reports whether the request's form parses within the
// size limit.
func readTokenForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBytes)
	return r.ParseForm() == nil
}

// redeemCode exchanges a code: it is used up whatever follows, its grant
// revoked when it was used before (replay) or when the request does not
// match the authorization request (client, redirect URI, PKCE verifier,
// resource), so a stolen code is worth nothing to whoever stole it.
func (s *Server) redeemCode(r *http.Request) (tokenResponse, error) {
	ctx := r.Context()
	f := r.PostForm
	code, clientID := f.Get("code"), f.Get("client_id")
	if code == "" || clientID == "" {
		return tokenResponse{}, &tokenRefusal{http.StatusBadRequest, "invalid_request", "code and client_id are required"}
	}
	if k, _ := oauth.KindOf(code); k != oauth.KindCode {
		return tokenResponse{}, invalidGrant("the code is not one this server issued")
	}
	t, g, err := s.opts.OAuthIssuer.UseOAuthToken(ctx, oauth.Hash(code), store.OAuthCode)
	switch {
	case errors.Is(err, store.ErrReplayed):
		s.log(ctx).WarnContext(ctx, "oauth code replayed; grant revoked", logKeyOAuthClient, clientID)
		return tokenResponse{}, invalidGrant("the code was used before; its grant and every token from it are revoked")
	case errors.Is(err, store.ErrNotFound):
		return tokenResponse{}, invalidGrant("the code is unknown, expired or revoked")
	case err != nil:
		return tokenResponse{}, err
	}
	mismatch := ""
	switch {
	case g.ClientID != clientID:
		mismatch = "the code was issued to another client"
	case f.Get("redirect_uri") != t.RedirectURI:
		mismatch = "redirect_uri differs from the authorization request's"
	case oauth.VerifyPKCE(t.Challenge, f.Get("code_verifier")) != nil:
		mismatch = oauth.VerifyPKCE(t.Challenge, f.Get("code_verifier")).Error()
	case !resourceMatches(f.Get("resource"), g.Resource):
		mismatch = "resource differs from the authorization request's"
	}
	if mismatch != "" {
		if err := s.opts.OAuthIssuer.RevokeOAuthGrant(ctx, g.UserID, g.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return tokenResponse{}, err
		}
		return tokenResponse{}, invalidGrant("%s; the code is used up, start the authorization again", mismatch)
	}
	return s.issueTokens(r, g)
}

// refresh rotates a refresh token: the one presented is used up and a
// new pair issued. A refresh token presented a second time means two
// parties hold it; the store then revokes the whole grant (OAuth 2.1
// section 4.3.1).
func (s *Server) refresh(r *http.Request) (tokenResponse, error) {
	ctx := r.Context()
	f := r.PostForm
	rt, clientID := f.Get("refresh_token"), f.Get("client_id")
	if rt == "" || clientID == "" {
		return tokenResponse{}, &tokenRefusal{http.StatusBadRequest, "invalid_request", "refresh_token and client_id are required"}
	}
	if k, _ := oauth.KindOf(rt); k != oauth.KindRefresh {
		return tokenResponse{}, invalidGrant("the refresh token is not one this server issued")
	}
	_, g, err := s.opts.OAuthIssuer.UseOAuthToken(ctx, oauth.Hash(rt), store.OAuthRefresh)
	switch {
	case errors.Is(err, store.ErrReplayed):
		s.log(ctx).WarnContext(ctx, "oauth refresh token reused; grant revoked", logKeyOAuthClient, clientID)
		return tokenResponse{}, invalidGrant("the refresh token was used before; its grant and every token from it are revoked: sign in again")
	case errors.Is(err, store.ErrNotFound):
		return tokenResponse{}, invalidGrant("the refresh token is unknown, expired or revoked: sign in again")
	case err != nil:
		return tokenResponse{}, err
	}
	if g.ClientID != clientID || !resourceMatches(f.Get("resource"), g.Resource) {
		if err := s.opts.OAuthIssuer.RevokeOAuthGrant(ctx, g.UserID, g.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return tokenResponse{}, err
		}
		return tokenResponse{}, invalidGrant("the refresh token was issued to another client or resource; its grant is revoked")
	}
	return s.issueTokens(r, g)
}

// resourceMatches reports whether a token request's resource parameter
// (optional) names the grant's resource.
func resourceMatches(raw, granted string) bool {
	if raw == "" {
		return true
	}
	got, err := oauth.CanonicalResource(raw)
	return err == nil && got == granted
}

// issueTokens stores a new access and refresh token of grant g.
func (s *Server) issueTokens(r *http.Request, g store.OAuthGrant) (tokenResponse, error) {
	ctx := r.Context()
	now := s.opts.Now()
	access, ah := oauth.NewSecret(oauth.KindAccess)
	refresh, rh := oauth.NewSecret(oauth.KindRefresh)
	for _, t := range []store.OAuthToken{
		{Hash: ah, GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: now.Add(accessTTL)},
		{Hash: rh, GrantID: g.ID, Kind: store.OAuthRefresh, ExpiresAt: now.Add(refreshTTL)},
	} {
		if err := s.opts.OAuthIssuer.PutOAuthToken(ctx, t); err != nil {
			return tokenResponse{}, fmt.Errorf("storing an oauth %s token: %w", t.Kind, err)
		}
	}
	return tokenResponse{
		AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(accessTTL / time.Second),
		RefreshToken: refresh, Scope: strings.Join(g.Scopes, " "),
	}, nil
}
