package server

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
)

// authzRequest is a checked authorization request (RFC 6749 section
// 4.1.1 with PKCE and RFC 8707 resource): every field is safe to act on.
type authzRequest struct {
	Client      client
	RedirectURI string
	State       string
	Challenge   string
	// Resource is canonical: this server's /mcp or its REST API.
	Resource string
	Scopes   []string
}

// authzError is a refused authorization request. Redirect says whether
// the client may be told at its redirect URI (RFC 6749 section 4.1.2.1):
// only once the client and its redirect URI are verified; before that the
// person is shown the error and nothing is sent anywhere.
type authzError struct {
	Redirect bool
	Code     string
	Desc     string
}

// Bounds on what an authorization request may carry.
const (
	maxStateLen = 1024
	maxScopes   = 10
	maxScopeLen = 64
)

// authzParams are the parameters read; each may appear at most once.
var authzParams = []string{"client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state", "resource", "scope"}

// parseAuthorize checks an authorization request's parameters q for the
// authorization server at base. The error is a store failure; a refusal
// is the *authzError.
func (s *Server) parseAuthorize(ctx context.Context, base string, q url.Values) (authzRequest, *authzError, error) {
	var req authzRequest
	for _, k := range authzParams {
		if len(q[k]) > 1 {
			return req, &authzError{Code: "invalid_request", Desc: fmt.Sprintf("%s appears more than once", k)}, nil
		}
	}
	id := q.Get("client_id")
	if id == "" {
		return req, &authzError{Code: "invalid_request", Desc: "client_id is required"}, nil
	}
	c, err := s.resolveClient(ctx, id)
	switch {
	case errors.Is(err, errUnknownClient), errors.Is(err, oauth.ErrClientIDURL):
		return req, &authzError{Code: "invalid_client", Desc: err.Error()}, nil
	case err != nil:
		return req, nil, err
	}
	req.Client = c
	req.RedirectURI = q.Get("redirect_uri")
	if req.RedirectURI == "" {
		return req, &authzError{Code: "invalid_request", Desc: "redirect_uri is required"}, nil
	}
	if !oauth.MatchRedirect(c.RedirectURIs, req.RedirectURI) {
		return req, &authzError{Code: "invalid_request", Desc: fmt.Sprintf("redirect_uri %q is not registered for client %q", req.RedirectURI, id)}, nil
	}
	// The redirect URI is the client's own from here on: refusals go back
	// to it, with the state.
	req.State = q.Get("state")
	if len(req.State) > maxStateLen {
		req.State = ""
		return req, &authzError{Redirect: true, Code: "invalid_request", Desc: fmt.Sprintf("state is longer than %d characters", maxStateLen)}, nil
	}
	if rt := q.Get("response_type"); rt != "code" {
		return req, &authzError{Redirect: true, Code: "unsupported_response_type", Desc: `response_type must be "code"`}, nil
	}
	if aerr := checkPKCE(q); aerr != nil {
		return req, aerr, nil
	}
	req.Challenge = q.Get("code_challenge")
	res, aerr := checkResource(base, q.Get("resource"))
	if aerr != nil {
		return req, aerr, nil
	}
	req.Resource = res
	scopes, aerr := checkScopes(q.Get("scope"))
	if aerr != nil {
		return req, aerr, nil
	}
	req.Scopes = scopes
	return req, nil, nil
}

// checkPKCE refuses a request without an S256 challenge.
func checkPKCE(q url.Values) *authzError {
	if err := oauth.CheckChallenge(q.Get("code_challenge_method"), q.Get("code_challenge")); err != nil {
		return &authzError{Redirect: true, Code: "invalid_request", Desc: err.Error()}
	}
	return nil
}

// checkResource returns the canonical resource a request names: this
// server's /mcp (also when none is named) or its REST API; any other is
// invalid_target (RFC 8707 section 2), so no token is ever issued for
// another server.
func checkResource(base, raw string) (string, *authzError) {
	mcp, _ := oauth.CanonicalResource(base + mcpResourcePath)
	if raw == "" {
		return mcp, nil
	}
	rest, _ := oauth.CanonicalResource(base)
	got, err := oauth.CanonicalResource(raw)
	if err != nil || (got != mcp && got != rest) {
		return "", &authzError{Redirect: true, Code: "invalid_target", Desc: fmt.Sprintf("resource must be %s (or %s for the REST API)", mcp, rest)}
	}
	return got, nil
}

// checkScopes splits a scope parameter. Scopes are recorded with the
// grant and shown at consent; what a token may do is its user's
// permissions, so no scope widens them.
func checkScopes(raw string) ([]string, *authzError) {
	scopes := strings.Fields(raw)
	if len(scopes) > maxScopes {
		return nil, &authzError{Redirect: true, Code: "invalid_scope", Desc: fmt.Sprintf("at most %d scopes", maxScopes)}
	}
	for _, sc := range scopes {
		if len(sc) > maxScopeLen || strings.ContainsAny(sc, "\"\\") || strings.ContainsFunc(sc, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			return nil, &authzError{Redirect: true, Code: "invalid_scope", Desc: fmt.Sprintf("scope %q is not a scope token (RFC 6749 section 3.3)", sc)}
		}
	}
	return scopes, nil
}

// redirectWith returns the client's redirect URI with params added to its
// query, plus state and iss (RFC 9207), as the authorization response.
func (req authzRequest) redirectWith(base string, params url.Values) string {
	u, err := url.Parse(req.RedirectURI)
	if err != nil {
		return "" // matched a registered URI, which parsed at registration
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.State != "" {
		q.Set("state", req.State)
	}
	q.Set("iss", base)
	u.RawQuery = q.Encode()
	return u.String()
}

// errorRedirect is the authorization error response for e.
func (req authzRequest) errorRedirect(base string, e *authzError) string {
	return req.redirectWith(base, url.Values{"error": {e.Code}, "error_description": {e.Desc}})
}

// authorize is GET /oauth/authorize: it checks the request and shows the
// consent page, which asks the signed-in user through the consent API. A
// request refused before its redirect URI is verified is shown to the
// person, never redirected (an open redirect otherwise).
func (s *Server) authorize() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		base := s.baseURL(r)
		if base == "" {
			return errNoPublicURL
		}
		req, aerr, err := s.parseAuthorize(r.Context(), base, r.URL.Query())
		switch {
		case err != nil:
			return err
		case aerr != nil && aerr.Redirect:
			http.Redirect(w, r, req.errorRedirect(base, aerr), http.StatusFound)
			return nil
		case aerr != nil:
			writeAuthorizeRefusal(w, aerr)
			return nil
		case s.opts.Web == nil:
			return errorf(http.StatusNotFound, "no_web_ui", "the consent page is part of the web UI, which this server does not serve")
		}
		s.opts.Web.ServeHTTP(w, r)
		return nil
	}
}

// writeAuthorizeRefusal shows a refused authorization request to the
// person in the browser.
func writeAuthorizeRefusal(w http.ResponseWriter, e *authzError) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Authorization refused · Switchboard</title>"+
		"<h1>This application's sign-in request was refused</h1><p>%s: %s</p>"+
		"<p>Nothing was sent back to the application. Tell its developer, or close this page.</p></html>\n",
		html.EscapeString(e.Code), html.EscapeString(e.Desc))
}
