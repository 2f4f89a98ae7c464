package server

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// consentJSON is what the consent page shows: who asks, for what, and
// as whom.
type consentJSON struct {
	Client struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		// Source is "registered" (RFC 7591) or "metadata" (the document at
		// ID, an https URL).
		Source       string `json:"source"`
		RedirectURI  string `json:"redirectUri"`
		RedirectHost string `json:"redirectHost"`
	} `json:"client"`
	Resource string   `json:"resource"`
	Scopes   []string `json:"scopes"`
	User     struct {
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"user"`
	// Tools are the user's tool permissions (globs), which the token gets.
	Tools []string `json:"tools"`
}

// consentDecision is the body of POST /api/v1/oauth/consent: the
// authorization request's query string, as the page received it, and the
// person's answer.
type consentDecision struct {
	Query   string `json:"query"`
	Approve bool   `json:"approve"`
}

// consentRedirect tells the page where to send the browser.
type consentRedirect struct {
	Redirect string `json:"redirect"`
}

var errConsentUser = &Error{
	Status: http.StatusForbidden, Code: "forbidden",
	Msg: "consent needs a signed-in person (an API key or a sign-in session); an OAuth token cannot grant access, and anonymous access cannot either: create a user first",
}

// consentUser returns the request's user if it may consent: a stored
// user authenticated as a person, not through an OAuth token (a client
// holding a token must not mint itself more grants).
func consentUser(r *http.Request) (User, error) {
	u := mustUser(r)
	if u.Anonymous || u.ID == "" || u.OAuthClient != "" {
		return User{}, errConsentUser
	}
	return u, nil
}

// consentRequest checks the authorization request of a consent call.
func (s *Server) consentRequest(r *http.Request, query string) (authzRequest, string, error) {
	if !s.oauthOn() {
		return authzRequest{}, "", errNoOAuth
	}
	base := s.baseURL(r)
	if base == "" {
		return authzRequest{}, "", errNoPublicURL
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return authzRequest{}, "", badRequest("the authorization request's query does not parse: %v", err)
	}
	req, aerr, err := s.parseAuthorize(r.Context(), base, q)
	if err != nil {
		return authzRequest{}, "", err
	}
	if aerr != nil {
		return authzRequest{}, "", errorf(http.StatusBadRequest, aerr.Code, "%s", aerr.Desc)
	}
	return req, base, nil
}

// consentInfo is GET /api/v1/oauth/consent?<authorization request>: the
// consent page's content.
func (s *Server) consentInfo() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := consentUser(r)
		if err != nil {
			return err
		}
		req, _, err := s.consentRequest(r, r.URL.RawQuery)
		if err != nil {
			return err
		}
		var out consentJSON
		out.Client.ID, out.Client.Name, out.Client.Source = req.Client.ID, req.Client.Name, string(req.Client.Source)
		out.Client.RedirectURI = req.RedirectURI
		if ru, err := url.Parse(req.RedirectURI); err == nil {
			out.Client.RedirectHost = ru.Host
		}
		out.Resource, out.Scopes = req.Resource, req.Scopes
		if out.Scopes == nil {
			out.Scopes = []string{}
		}
		out.User.Name, out.User.Role = u.Name, string(u.role())
		out.Tools = u.Permissions
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

// consent is POST /api/v1/oauth/consent: the signed-in user's answer.
// Approving creates the grant and a code (single use, codeTTL, stored
// hashed, bound to the client, redirect URI, PKCE challenge and
// resource); either answer returns the redirect to the client.
//
// Cross-site forgery: the route is a state-changing API route, so the
// server's guard refuses a cross-site request (Sec-Fetch-Site, Origin)
// before authentication; and the body must be JSON, which no cross-site
// form can send without a CORS preflight that this route never grants.
func (s *Server) consent() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			return errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the decision as application/json")
		}
		u, err := consentUser(r)
		if err != nil {
			return err
		}
		var d consentDecision
		if err := decodeJSON(w, r, 16<<10, &d); err != nil {
			return err
		}
		req, base, err := s.consentRequest(r, d.Query)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		if !d.Approve {
			writeJSON(w, http.StatusOK, consentRedirect{req.errorRedirect(base, &authzError{Code: "access_denied", Desc: "the user denied the request"})})
			return nil
		}
		code, err := s.issueCode(r, u, req)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, consentRedirect{req.redirectWith(base, url.Values{"code": {code}})})
		return nil
	}
}

// issueCode stores u's grant of req and an authorization code for it,
// and returns the code.
func (s *Server) issueCode(r *http.Request, u User, req authzRequest) (string, error) {
	ctx := r.Context()
	g, err := s.opts.OAuthIssuer.CreateOAuthGrant(ctx, store.OAuthGrant{UserID: u.ID, ClientID: req.Client.ID, Resource: req.Resource, Scopes: req.Scopes})
	if err != nil {
		return "", fmt.Errorf("creating the grant: %w", err)
	}
	code, hash := oauth.NewSecret(oauth.KindCode)
	if err := s.opts.OAuthIssuer.PutOAuthToken(ctx, store.OAuthToken{
		Hash: hash, GrantID: g.ID, Kind: store.OAuthCode, ExpiresAt: s.opts.Now().Add(codeTTL),
		RedirectURI: req.RedirectURI, Challenge: req.Challenge,
	}); err != nil {
		return "", fmt.Errorf("storing the code: %w", err)
	}
	s.log(ctx).InfoContext(ctx, "oauth grant", logKeyOAuthClient, req.Client.ID, logKeyGrant, g.ID)
	return code, nil
}
