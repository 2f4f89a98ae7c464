package mcptest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// AuthServer is an in-process OAuth 2.1 authorization server (metadata,
// dynamic client registration, authorize with PKCE S256, token with
// authorization_code and refresh_token grants) guarding a Streamable HTTP
// MCP test server that requires its bearer tokens.
type AuthServer struct {
	URL string // the authorization server's base URL (its issuer)

	// Counters tests assert on.
	Registrations  atomic.Int32
	Authorizations atomic.Int32 // /authorize visits, i.e. interactive logins
	Exchanges      atomic.Int32 // authorization_code grants
	Refreshes      atomic.Int32 // refresh_token grants
	// ClientCredentials counts client_credentials grants made (for the
	// clients added with AddConfidentialClient).
	ClientCredentials atomic.Int32

	mu      sync.Mutex
	clients map[string]string    // client_id -> redirect_uri; mu guards clients, codes, tokens, refresh
	codes   map[string]string    // code -> PKCE challenge
	tokens  map[string]time.Time // access token -> expiry
	refresh map[string]bool
	secrets map[string]string // client_id -> secret of confidential clients; mu guards it
	ttl     time.Duration
}

// AddConfidentialClient pre-registers a client that may use the
// client_credentials grant, authenticating with client_secret_basic or
// client_secret_post.
func (as *AuthServer) AddConfidentialClient(id, secret string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.secrets[id] = secret
}

// OAuthServer starts an authorization server and an MCP server protected by
// it (both closed when the test ends). It returns the MCP server's config
// (Transport "http", no credentials) and the authorization server. ttl is
// the lifetime of access tokens; a short one makes clients refresh.
func OAuthServer(t testing.TB, name string, ttl time.Duration) (mcphost.ServerConfig, *AuthServer) {
	t.Helper()
	as := &AuthServer{clients: map[string]string{}, codes: map[string]string{}, tokens: map[string]time.Time{}, refresh: map[string]bool{}, secrets: map[string]string{}, ttl: ttl}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("/register", as.register)
	mux.HandleFunc("/authorize", as.authorize)
	mux.HandleFunc("/token", as.token)
	ahs := httptest.NewServer(mux)
	t.Cleanup(ahs.Close)
	as.URL = ahs.URL

	ts := &testServer{events: &eventLog{}}
	srv := ts.build()
	mcpMux := http.NewServeMux()
	hs := httptest.NewUnstartedServer(mcpMux)
	hs.Start()
	resource := hs.URL + "/mcp"
	prmURL := hs.URL + "/.well-known/oauth-protected-resource/mcp"
	mcpMux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{as.URL},
		ScopesSupported:      []string{"tools"},
	}))
	verify := auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})
	mcpMux.Handle("/mcp", verify(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	return mcphost.ServerConfig{Name: name, Transport: mcphost.TransportHTTP, URL: resource}, as
}

// Redirect plays the user's browser for [mcphost.Options.OAuthRedirect]: it
// visits authURL, approves, and returns the URL it was redirected to.
func (as *AuthServer) Redirect(ctx context.Context, authURL string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || loc == "" {
		return "", fmt.Errorf("authorize answered %s without a redirect", resp.Status)
	}
	return loc, nil
}

func (as *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, &oauthex.AuthServerMeta{
		Issuer:                                     as.URL,
		AuthorizationEndpoint:                      as.URL + "/authorize",
		TokenEndpoint:                              as.URL + "/token",
		RegistrationEndpoint:                       as.URL + "/register",
		ScopesSupported:                            []string{"tools", "offline_access"},
		ResponseTypesSupported:                     []string{"code"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token", "client_credentials"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          []string{"none", "client_secret_basic", "client_secret_post"},
		AuthorizationResponseIssParameterSupported: true,
	})
}

func (as *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var md oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		http.Error(w, "bad registration", http.StatusBadRequest)
		return
	}
	as.Registrations.Add(1)
	id := rand.Text()
	as.mu.Lock()
	as.clients[id] = md.RedirectURIs[0]
	as.mu.Unlock()
	md.TokenEndpointAuthMethod = "none"
	writeJSON(w, http.StatusCreated, &oauthex.ClientRegistrationResponse{ClientID: id, ClientRegistrationMetadata: md})
}

func (as *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	redirect, ok := as.clients[q.Get("client_id")]
	as.mu.Unlock()
	if !ok || redirect != q.Get("redirect_uri") || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	as.Authorizations.Add(1)
	code := rand.Text()
	as.mu.Lock()
	as.codes[code] = q.Get("code_challenge")
	as.mu.Unlock()
	http.Redirect(w, r, redirect+"?"+url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.URL}}.Encode(), http.StatusFound)
}

func (as *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		challenge, ok := as.codes[r.Form.Get("code")]
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(as.codes, r.Form.Get("code"))
		as.Exchanges.Add(1)
	case "refresh_token":
		if !as.refresh[r.Form.Get("refresh_token")] {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		as.Refreshes.Add(1)
	case "client_credentials":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
		}
		if want, known := as.secrets[id]; !known || secret == "" || secret != want {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		as.ClientCredentials.Add(1)
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := rand.Text(), rand.Text()
	as.tokens[access] = time.Now().Add(as.ttl)
	as.refresh[refresh] = true
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(as.ttl.Seconds()),
	})
}

func (as *AuthServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	as.mu.Lock()
	exp, ok := as.tokens[token]
	as.mu.Unlock()
	if !ok || time.Now().After(exp) {
		return nil, fmt.Errorf("%w: unknown or expired token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Scopes: []string{"tools"}, Expiration: exp}, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
