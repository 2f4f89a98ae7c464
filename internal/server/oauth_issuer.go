package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// OAuthIssuer is what issuing OAuth codes and tokens needs: clients,
// grants made at consent, the codes and tokens issued from them, and a
// user's grants to list and revoke. Every [store.Store] implements it.
// Redemption is the store's one conditional UPDATE, so of two replicas
// redeeming one code only one wins.
type OAuthIssuer interface {
	GetOAuthClient(ctx context.Context, id string) (store.OAuthClient, error)
	CreateOAuthGrant(ctx context.Context, g store.OAuthGrant) (store.OAuthGrant, error)
	PutOAuthToken(ctx context.Context, t store.OAuthToken) error
	UseOAuthToken(ctx context.Context, hash string, kind store.OAuthTokenKind) (store.OAuthToken, store.OAuthGrant, error)
	ListOAuthGrants(ctx context.Context, userID string) ([]store.OAuthGrant, error)
	RevokeOAuthGrant(ctx context.Context, userID, id string) error
}

// ClientMetadataFetcher fetches a client ID metadata document; an
// [*oauth.Fetcher] in production (SSRF-guarded), one allowing loopback in
// tests.
type ClientMetadataFetcher interface {
	Fetch(ctx context.Context, clientID string) (oauth.ClientMetadata, error)
}

var _ ClientMetadataFetcher = (*oauth.Fetcher)(nil)

// Lifetimes of what the authorization server issues. A code lives long
// enough for a client to redeem it at once and no longer (OAuth 2.1
// section 4.1.2 recommends at most 10 minutes; a minute is plenty); an
// access token is short so that a stolen one is short-lived even where
// revocation is not used; a refresh token rotates on every use.
const (
	codeTTL    = 60 * time.Second
	accessTTL  = 10 * time.Minute
	refreshTTL = 30 * 24 * time.Hour
)

// oauthOn reports whether this server is an authorization server: it
// accepts tokens (Options.OAuth) and issues them (Options.OAuthIssuer).
func (s *Server) oauthOn() bool { return s.opts.OAuth != nil && s.opts.OAuthIssuer != nil }

// client is an OAuth client as the authorization endpoint sees it.
type client struct {
	store.OAuthClient
}

// errUnknownClient is returned by resolveClient for a client_id that is
// neither registered nor a fetchable metadata document.
var errUnknownClient = errors.New("unknown client_id: register the client (POST /oauth/register) or use an https client ID metadata document URL")

// resolveClient returns the client with id: a registered one from the
// store, or, for an https URL, the client ID metadata document fetched
// there (cached for a few minutes, and stored so that grants can name it).
func (s *Server) resolveClient(ctx context.Context, id string) (client, error) {
	c, err := s.opts.OAuthIssuer.GetOAuthClient(ctx, id)
	if err == nil && c.Source == store.OAuthClientRegistered {
		return client{c}, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return client{}, err
	}
	if u, perr := url.Parse(id); perr != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return client{}, errUnknownClient
	}
	m, err := s.cimd.get(ctx, id)
	if err != nil {
		return client{}, err
	}
	doc := store.OAuthClient{ID: id, Name: m.ClientName, RedirectURIs: m.RedirectURIs, Source: store.OAuthClientMetadata}
	if c.ID == "" {
		// The row exists only so that grants may reference the client;
		// its redirect URIs are always the document's, fetched anew.
		if err := s.opts.OAuth.PutOAuthClient(ctx, doc); err != nil && !errors.Is(err, store.ErrConflict) {
			return client{}, fmt.Errorf("storing metadata client %q: %w", id, err)
		}
	}
	return client{doc}, nil
}

// cimdTTL is how long a fetched client ID metadata document is used
// before it is fetched again, and cimdMax bounds the cache (a client_id is
// chosen by whoever opens the authorization URL).
const (
	cimdTTL = 5 * time.Minute
	cimdMax = 256
)

// cimdCache caches client ID metadata documents by URL, so that the
// authorization page and its consent calls do not each fetch the
// document. Entries expire after cimdTTL; when full, the cache is emptied
// (fetching again is only slower). No lock is held across a fetch.
type cimdCache struct {
	fetch ClientMetadataFetcher
	now   func() time.Time

	mu      sync.Mutex
	entries map[string]cimdEntry // guarded by mu
}

type cimdEntry struct {
	m   oauth.ClientMetadata
	exp time.Time
}

func newCIMDCache(f ClientMetadataFetcher, now func() time.Time) *cimdCache {
	return &cimdCache{fetch: f, now: now, entries: map[string]cimdEntry{}}
}

// get returns the document at id, from the cache or fetched.
func (c *cimdCache) get(ctx context.Context, id string) (oauth.ClientMetadata, error) {
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if ok && c.now().Before(e.exp) {
		return e.m, nil
	}
	m, err := c.fetch.Fetch(ctx, id)
	if err != nil {
		return oauth.ClientMetadata{}, err
	}
	c.mu.Lock()
	if len(c.entries) >= cimdMax {
		clear(c.entries)
	}
	c.entries[id] = cimdEntry{m: m, exp: c.now().Add(cimdTTL)}
	c.mu.Unlock()
	return m, nil
}
