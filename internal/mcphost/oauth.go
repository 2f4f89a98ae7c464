package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// ErrNeedsLogin reports that a server demands OAuth and neither a stored
// token nor [Options.OAuthRedirect] can satisfy it. The server stays failed
// until [Pool.Restart] after the user logged in.
var ErrNeedsLogin = errors.New("the server requires OAuth authorization and no interactive login is available here: log in to it first")

// DefaultRedirectURL is where the authorization server sends the browser
// back when [OAuthConfig].RedirectURL is empty: a loopback address the
// login command listens on.
const DefaultRedirectURL = "http://127.0.0.1:8976/callback"

// storedGrant is the JSON kept in DataDir/oauth/<server>.json: enough to
// refresh the token without talking to the user again.
//
// A grant is the operator's (made by `switchboard mcp login`) and bound to
// the server it was made for: it is used only while the server's URL is
// the one it was made with (ServerURL), so a config edit that points the
// name at another server does not hand it the token, and only from a file
// that belongs to the user Switchboard runs as and that no one else can
// write (checked at every read and write, see load and save).
type storedGrant struct {
	// ServerURL is the MCP server's URL when the grant was made; empty in
	// files written before it was recorded, which are taken as they are
	// and get it on the next save.
	ServerURL    string        `json:"server_url,omitempty"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	RedirectURL  string        `json:"redirect_url,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// oauthState is one remote server's OAuth client: the SDK's
// authorization-code handler (PKCE, dynamic client registration,
// protected-resource metadata discovery) plus token persistence.
type oauthState struct {
	s        *server
	path     string // "" when tokens are kept in memory only
	handler  auth.OAuthHandler
	initErr  error
	needUser atomic.Bool // the last authorization needed the user and could not ask

	mu sync.Mutex // serialises file writes
}

func newOAuthState(s *server) *oauthState {
	a := &oauthState{s: s}
	// An explicit Authorization header means the user manages credentials.
	for k := range s.cfg.Headers {
		if http.CanonicalHeaderKey(k) == "Authorization" && s.cfg.OAuth == nil {
			return nil
		}
	}
	if s.opts.DataDir != "" {
		a.path = filepath.Join(s.opts.DataDir, "oauth", safeFileName(s.cfg.Name)+".json")
	}
	oc := s.cfg.OAuth
	if oc == nil {
		oc = &OAuthConfig{}
	}
	if oc.Grant == GrantClientCredentials {
		a.handler, a.initErr = clientCredentialsHandler(oc, s.opts.OAuthHTTPClient)
		return a
	}
	redirect := oc.RedirectURL
	if redirect == "" {
		redirect = DefaultRedirectURL
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: a.fetchCode,
		RequestRefreshToken:      true,
		NewTokenSource:           a.newTokenSource,
		Client:                   s.opts.OAuthHTTPClient,
	}
	if oc.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: oc.ClientID}
		if oc.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: oc.ClientSecret}
		}
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{redirect},
				ClientName:   "Switchboard",
				GrantTypes:   []string{"authorization_code", "refresh_token"},
			},
		}
	}
	if oc.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: oc.ClientMetadataURL}
	}
	if len(oc.Scopes) > 0 {
		scopes := oc.Scopes
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	if g, err := a.load(); err != nil {
		s.log.Warn("ignoring stored oauth grant; log in again with `switchboard mcp login`", logKeyPath, a.path, logKeyErr, err)
	} else if g != nil {
		ocfg := g.config()
		ctx := context.Background()
		if c := s.opts.OAuthHTTPClient; c != nil {
			ctx = context.WithValue(ctx, oauth2.HTTPClient, c)
		}
		cfg.InitialTokenSource = a.persisting(ocfg, ocfg.TokenSource(ctx, g.Token))
	}
	a.handler, a.initErr = auth.NewAuthorizationCodeHandler(cfg)
	if a.initErr != nil {
		a.handler = nil // not a typed nil in the interface
	}
	return a
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// safeFileName keeps a server name from escaping the oauth directory.
func safeFileName(name string) string {
	n := unsafeChars.ReplaceAllString(name, "_")
	if n == "" || n == "." || n == ".." {
		n = "_" + n
	}
	return n
}

func (g *storedGrant) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     g.ClientID,
		ClientSecret: g.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: g.AuthURL, TokenURL: g.TokenURL, AuthStyle: oauth2.AuthStyle(g.AuthStyle)},
		RedirectURL:  g.RedirectURL,
		Scopes:       g.Scopes,
	}
}

// oauthHandler returns the handler to give the Streamable HTTP transport, or
// nil when OAuth does not apply to this server.
func (s *server) oauthHandler() auth.OAuthHandler {
	if s.auth == nil || s.auth.handler == nil {
		return nil
	}
	return s.auth.handler
}

func (a *oauthState) needsLogin() bool { return a != nil && a.needUser.Load() }

// fetchCode is the SDK's AuthorizationCodeFetcher: it hands the
// authorization URL to the host's interactive hook and parses the callback.
func (a *oauthState) fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	hook := a.s.opts.OAuthRedirect
	if hook == nil {
		a.needUser.Store(true)
		return nil, ErrNeedsLogin
	}
	cb, err := hook(ctx, args.URL)
	if err != nil {
		return nil, fmt.Errorf("completing oauth authorization in the browser: %w", err)
	}
	u, err := url.Parse(cb)
	if err != nil {
		return nil, fmt.Errorf("parsing oauth callback url: %w", err)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization server refused: %s %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return nil, errors.New("oauth callback url has no code")
	}
	a.needUser.Store(false)
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// newTokenSource is called by the SDK after a code exchange: remember the
// grant, and save every new token the source hands out.
func (a *oauthState) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	if err := a.save(cfg, tok); err != nil {
		a.s.log.Warn("could not store oauth token", logKeyPath, a.path, logKeyErr, err)
	}
	return a.persisting(cfg, cfg.TokenSource(ctx, tok)), nil
}

// persisting wraps ts so refreshed tokens are written back to disk.
func (a *oauthState) persisting(cfg *oauth2.Config, ts oauth2.TokenSource) oauth2.TokenSource {
	return &savingSource{a: a, cfg: cfg, ts: ts}
}

type savingSource struct {
	a   *oauthState
	cfg *oauth2.Config
	ts  oauth2.TokenSource

	mu   sync.Mutex
	last string // mu guards last: the access token last saved
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.ts.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		if err := s.a.save(s.cfg, tok); err != nil {
			s.a.s.log.Warn("could not store refreshed oauth token", logKeyPath, s.a.path, logKeyErr, err)
		}
	}
	return tok, nil
}

// load reads the stored grant; nil, nil when there is none. A grant is
// refused (with the reason) when its file is a symlink, not a regular file,
// not Switchboard's user's or open to other users, or when it was made for
// another URL than the server's.
func (a *oauthState) load() (*storedGrant, error) {
	if a.path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(a.path, os.O_RDONLY|openNoFollow, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if fi, lerr := os.Lstat(a.path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link; a grant is read only from a file of its own", a.path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", a.path)
	}
	if why := ownedBySelf(fi); why != "" {
		return nil, fmt.Errorf("%s is not Switchboard's own: %s; remove it", a.path, why)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	var g storedGrant
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", a.path, err)
	}
	if g.Token == nil || g.TokenURL == "" || g.ClientID == "" {
		return nil, fmt.Errorf("%s lacks a token, token url or client id", a.path)
	}
	if g.ServerURL != "" && g.ServerURL != a.s.cfg.URL {
		return nil, fmt.Errorf("%s was made for %s, but server %q is now at %s; its token is not sent elsewhere",
			a.path, redact.URL(g.ServerURL), a.s.cfg.Name, redact.URL(a.s.cfg.URL))
	}
	return &g, nil
}

// save writes the grant atomically with mode 0600 (directory 0700).
func (a *oauthState) save(cfg *oauth2.Config, tok *oauth2.Token) error {
	if a.path == "" {
		return nil
	}
	g := storedGrant{
		ServerURL: a.s.cfg.URL,
		ClientID:  cfg.ClientID, ClientSecret: cfg.ClientSecret,
		AuthURL: cfg.Endpoint.AuthURL, TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle),
		RedirectURL: cfg.RedirectURL, Scopes: cfg.Scopes, Token: tok,
	}
	b, err := json.MarshalIndent(&g, "", "  ")
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	dir := filepath.Dir(a.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating oauth token directory: %w", err)
	}
	// The grant is written only into a directory of Switchboard's own,
	// which no one else could have swapped or could replace it in.
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("writing oauth token: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("writing oauth token: %s is not a directory (a symbolic link?)", dir)
	}
	if why := ownedBySelf(fi); why != "" {
		return fmt.Errorf("writing oauth token: %s is not Switchboard's own: %s", dir, why)
	}
	f, err := os.CreateTemp(filepath.Dir(a.path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing oauth token: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("writing oauth token: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing oauth token: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing oauth token: %w", err)
	}
	if err := os.Rename(f.Name(), a.path); err != nil {
		return fmt.Errorf("writing oauth token: %w", err)
	}
	return nil
}

// Login connects to a remote server once so that its OAuth grant is made
// (through opts.OAuthRedirect, which must be set) and stored under
// opts.DataDir, then disconnects. It is what `switchboard mcp login` runs;
// a Pool started afterwards reuses and refreshes the stored token.
func Login(ctx context.Context, sc ServerConfig, opts *Options) error {
	o := opts.withDefaults()
	if o.OAuthRedirect == nil {
		return errors.New("logging in to an mcp server needs Options.OAuthRedirect to show the authorization page")
	}
	if sc.transport() == TransportStdio {
		return fmt.Errorf("mcp server %q runs locally over stdio and has no OAuth login", sc.Name)
	}
	o.OnToolsChanged, o.OnStatus = nil, nil
	s := newServer(sc, &o, &stdio.Buffers{})
	if s.auth == nil {
		return fmt.Errorf("mcp server %q sends its own Authorization header; OAuth does not apply", sc.Name)
	}
	c, err := s.dial(ctx)
	if err != nil {
		return fmt.Errorf("logging in to mcp server %q: %w", sc.Name, err)
	}
	c.close()
	return nil
}
