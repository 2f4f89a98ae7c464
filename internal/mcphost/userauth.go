package mcphost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// UserAuthorization is an authorization one user began with a per-user
// remote server's own authorization server through a browser: everything
// the callback needs to exchange the code. It holds the PKCE verifier and
// the client's secret, so its holder keeps it sealed; it never leaves
// Switchboard.
type UserAuthorization struct {
	// Resource is the server's canonical URI (RFC 8707) from its protected
	// resource metadata; Issuer is its authorization server's.
	Resource, Issuer string
	// IssParameter says the authorization server sends iss in its
	// authorization response (RFC 9207), which is then required.
	IssParameter bool
	TokenURL     string
	ClientID     string
	ClientSecret string
	// AuthStyle is an [oauth2.AuthStyle]: how the client authenticates at
	// the token endpoint.
	AuthStyle   int
	RedirectURL string
	Scopes      []string
	Verifier    string
}

// UserToken is one user's token for a per-user remote server, with what
// refreshing it needs. Its holder keeps it sealed.
type UserToken struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	TokenURL     string    `json:"token_url"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthStyle    int       `json:"auth_style,omitempty"`
	Resource     string    `json:"resource"`
	Issuer       string    `json:"issuer"`
}

// Expired reports whether t's access token has expired at now or will
// within a minute (a call made with it would likely be refused midway).
func (t UserToken) Expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(time.Minute).After(t.Expiry)
}

// BeginUserAuthorization discovers the remote server at serverURL's
// protected resource metadata (RFC 9728: from its 401 challenge, else the
// well-known URLs) and its authorization server's metadata (RFC 8414, the
// issuer checked), gets a client (oc's pre-registered one, a client ID
// metadata document the server accepts, or dynamic registration, RFC
// 7591) and returns the authorization URL, with PKCE S256, the resource
// and state, to send the browser to, and what the callback needs.
// hc makes every request; nil means the SDK's discovery client, which
// refuses private and loopback addresses.
func BeginUserAuthorization(ctx context.Context, serverURL string, oc *OAuthConfig, redirectURL, state string, hc *http.Client) (string, UserAuthorization, error) {
	if oc == nil {
		oc = &OAuthConfig{}
	}
	prm, err := resourceMetadata(ctx, serverURL, hc)
	if err != nil {
		return "", UserAuthorization{}, err
	}
	issuer := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, hc)
	if err != nil {
		return "", UserAuthorization{}, fmt.Errorf("reading the metadata of authorization server %s: %w", issuer, err)
	}
	if asm == nil {
		return "", UserAuthorization{}, fmt.Errorf("authorization server %s publishes no metadata (RFC 8414)", issuer)
	}
	if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return "", UserAuthorization{}, fmt.Errorf("authorization server %s does not support PKCE with S256", issuer)
	}
	ua := UserAuthorization{
		Resource: prm.Resource, Issuer: asm.Issuer, IssParameter: asm.AuthorizationResponseIssParameterSupported,
		TokenURL: asm.TokenEndpoint, RedirectURL: redirectURL, Verifier: oauth2.GenerateVerifier(),
	}
	switch {
	case oc.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		ua.ClientID = oc.ClientMetadataURL
	case oc.ClientID != "":
		ua.ClientID, ua.ClientSecret = oc.ClientID, oc.ClientSecret
		ua.AuthStyle = int(tokenAuthStyle(asm.TokenEndpointAuthMethodsSupported))
	case asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirectURL}, ClientName: "Switchboard",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}, hc)
		if err != nil {
			return "", UserAuthorization{}, fmt.Errorf("registering with authorization server %s: %w", issuer, err)
		}
		ua.ClientID, ua.ClientSecret = reg.ClientID, reg.ClientSecret
		ua.AuthStyle = int(tokenAuthStyle([]string{reg.TokenEndpointAuthMethod}))
	default:
		return "", UserAuthorization{}, fmt.Errorf("authorization server %s offers no registration: configure oauth.clientId for this server", issuer)
	}
	ua.Scopes = oc.Scopes
	if len(ua.Scopes) == 0 {
		ua.Scopes = prm.ScopesSupported
	}
	if slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(ua.Scopes, "offline_access") {
		ua.Scopes = append(slices.Clip(ua.Scopes), "offline_access")
	}
	cfg := ua.config()
	cfg.Endpoint.AuthURL = asm.AuthorizationEndpoint
	return cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(ua.Verifier), oauth2.SetAuthURLParam("resource", ua.Resource)), ua, nil
}

func (ua *UserAuthorization) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: ua.ClientID, ClientSecret: ua.ClientSecret, RedirectURL: ua.RedirectURL, Scopes: ua.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: ua.TokenURL, AuthStyle: oauth2.AuthStyle(ua.AuthStyle)},
	}
}

// tokenAuthStyle picks how a client with a secret authenticates at the
// token endpoint from what it supports; with none listed, the library
// tries both.
func tokenAuthStyle(methods []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(methods, "client_secret_post"), slices.Contains(methods, "none"):
		return oauth2.AuthStyleInParams
	case slices.Contains(methods, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

// resourceMetadata finds the server's protected resource metadata: at the
// URL its 401 challenge names, else at the well-known URL with the
// server's path, else at the root. Each is checked to describe the server
// (its resource field) and to name an authorization server.
func resourceMetadata(ctx context.Context, serverURL string, hc *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("server url %q is not an absolute URL", serverURL)
	}
	var candidates []string
	if m := challengedMetadata(ctx, serverURL, hc); m != "" {
		candidates = append(candidates, m)
	}
	wk := *u
	wk.RawQuery, wk.Fragment = "", ""
	wk.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	candidates = append(candidates, wk.String())
	wk.Path = "/.well-known/oauth-protected-resource"
	candidates = append(candidates, wk.String())
	var errs []error
	for _, c := range slices.Compact(candidates) {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c, serverURL, hc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata of %s names no authorization server", serverURL)
		}
		return prm, nil
	}
	return nil, fmt.Errorf("finding the protected resource metadata (RFC 9728) of %s: %w", serverURL, errors.Join(errs...))
}

// challengedMetadata returns the resource_metadata URL the server names
// in the challenge of its 401 to a request without credentials, or "".
func challengedMetadata(ctx context.Context, serverURL string, hc *http.Client) string {
	if hc == nil {
		hc = http.DefaultClient
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"switchboard","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusUnauthorized {
		return ""
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return ""
	}
	for _, c := range cs {
		if m := c.Params["resource_metadata"]; m != "" {
			return m
		}
	}
	return ""
}

// Exchange checks the authorization response's issuer (RFC 9207: a
// mismatch, or none when the server promised one, is refused, against
// mix-up) and exchanges code, with the PKCE verifier and the resource,
// for a token.
func (ua *UserAuthorization) Exchange(ctx context.Context, code, iss string, hc *http.Client) (UserToken, error) {
	switch {
	case iss != "" && iss != ua.Issuer:
		return UserToken{}, fmt.Errorf("the authorization response came from issuer %q, not %q that this authorization began with", iss, ua.Issuer)
	case iss == "" && ua.IssParameter:
		return UserToken{}, fmt.Errorf("authorization server %s promises an iss parameter and the response had none", ua.Issuer)
	}
	tok, err := ua.config().Exchange(clientContext(ctx, hc), code, oauth2.VerifierOption(ua.Verifier), oauth2.SetAuthURLParam("resource", ua.Resource))
	if err != nil {
		return UserToken{}, fmt.Errorf("exchanging the authorization code at %s: %w", ua.TokenURL, tokenError(err))
	}
	return UserToken{
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
		TokenURL: ua.TokenURL, ClientID: ua.ClientID, ClientSecret: ua.ClientSecret, AuthStyle: ua.AuthStyle,
		Resource: ua.Resource, Issuer: ua.Issuer,
	}, nil
}

// Refresh returns t with a new access token from its refresh token (and
// the new refresh token when the server rotates them). An error means the
// user must authorize again.
func (t UserToken) Refresh(ctx context.Context, hc *http.Client) (UserToken, error) {
	if t.RefreshToken == "" {
		return UserToken{}, errors.New("the authorization server gave no refresh token")
	}
	cfg := &oauth2.Config{
		ClientID: t.ClientID, ClientSecret: t.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)},
	}
	old := &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)}
	// x/oauth2 sends no resource with a refresh; RFC 8707 lets the server
	// keep the grant's, which names the one server it was made for.
	ctx = clientContext(ctx, hc)
	tok, err := cfg.TokenSource(ctx, old).Token()
	if err != nil {
		return UserToken{}, fmt.Errorf("refreshing at %s: %w", t.TokenURL, tokenError(err))
	}
	t.AccessToken, t.Expiry = tok.AccessToken, tok.Expiry
	if tok.RefreshToken != "" {
		t.RefreshToken = tok.RefreshToken
	}
	return t, nil
}

func clientContext(ctx context.Context, hc *http.Client) context.Context {
	if hc == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

// tokenError keeps the authorization server's error code and description
// and drops the response body, which could echo what was sent.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("%s %s", re.ErrorCode, re.ErrorDescription)
		}
		if re.Response != nil {
			return fmt.Errorf("status %s", re.Response.Status)
		}
	}
	return err
}
