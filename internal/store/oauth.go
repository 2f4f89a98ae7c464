package store

import (
	"context"
	"errors"
	"time"
)

// TopicOAuthGrants changes when an OAuth grant is revoked (by its user, or
// because a code or refresh token of it was replayed); Key is the grant's
// ID. A replica that caches access tokens drops those of the grant.
const TopicOAuthGrants Topic = "oauth_grants"

// ErrReplayed means a one-time OAuth secret (an authorization code or a
// refresh token) was presented a second time. The store has revoked its
// grant by then, so every token issued from it is refused too (OAuth 2.1
// section 4.1.3 for codes, 4.3.1 refresh token rotation).
var ErrReplayed = errors.New("oauth secret already used; its grant is revoked")

// OAuthClientSource says how the authorization server learned of a client.
type OAuthClientSource string

const (
	// OAuthClientRegistered clients registered themselves (RFC 7591).
	OAuthClientRegistered OAuthClientSource = "registered"
	// OAuthClientMetadata clients are an https client_id URL whose client
	// ID metadata document was fetched.
	OAuthClientMetadata OAuthClientSource = "metadata"
)

// OAuthClient is a client of Switchboard's authorization server. Clients
// are public (no secret): PKCE binds a code to whoever started the flow.
type OAuthClient struct {
	// ID is the client_id: random for registered clients, the document URL
	// for metadata clients.
	ID           string
	Name         string
	RedirectURIs []string
	Source       OAuthClientSource
	CreatedAt    time.Time
}

// OAuthGrant is one user's consent to one client for one resource: every
// code, access and refresh token issued from that consent belongs to it,
// and revoking it refuses them all.
type OAuthGrant struct {
	ID       string
	UserID   string
	ClientID string
	// Resource is the canonical resource (RFC 8707) the tokens are bound
	// to: their audience.
	Resource  string
	Scopes    []string
	CreatedAt time.Time
	// RevokedAt is zero while the grant is live.
	RevokedAt time.Time
}

// OAuthTokenKind is the kind of an OAuth secret the store keeps a hash of.
type OAuthTokenKind string

// The kinds of [OAuthToken].
const (
	OAuthCode    OAuthTokenKind = "code"
	OAuthAccess  OAuthTokenKind = "access"
	OAuthRefresh OAuthTokenKind = "refresh"
)

// OAuthToken is an authorization code, access token or refresh token, kept
// only as the hash of the secret.
type OAuthToken struct {
	Hash      string
	GrantID   string
	Kind      OAuthTokenKind
	ExpiresAt time.Time
	// RedirectURI and Challenge are the authorization request's, kept with
	// a code so the token request can be checked against them.
	RedirectURI string
	Challenge   string
	// UsedAt is when a code or refresh token was redeemed (zero before).
	UsedAt    time.Time
	CreatedAt time.Time
}

// OAuth keeps the authorization server's clients, grants and tokens.
// Tokens live here, not in a process, so that every replica accepts and
// refuses the same ones.
type OAuth interface {
	// PutOAuthClient stores c (CreatedAt set to now when zero).
	// ErrConflict if its ID is taken; ErrInvalid without ID, redirect URIs
	// or a known Source.
	PutOAuthClient(ctx context.Context, c OAuthClient) error
	// GetOAuthClient returns the client with id, or ErrNotFound.
	GetOAuthClient(ctx context.Context, id string) (OAuthClient, error)
	// CreateOAuthGrant stores g and returns it with ID and CreatedAt set.
	// ErrInvalid without user, client or resource; ErrNotFound (or
	// ErrConflict) when the user or client does not exist.
	CreateOAuthGrant(ctx context.Context, g OAuthGrant) (OAuthGrant, error)
	// PutOAuthToken stores t (CreatedAt set to now when zero). ErrInvalid
	// without hash, grant, kind or expiry.
	PutOAuthToken(ctx context.Context, t OAuthToken) error
	// UseOAuthToken redeems the code or refresh token with hash, once: it
	// returns the token and its grant and marks the token used. A token
	// used before makes it revoke the grant and return ErrReplayed. An
	// unknown or expired token, one of another kind, or one of a revoked
	// grant is ErrNotFound.
	UseOAuthToken(ctx context.Context, hash string, kind OAuthTokenKind) (OAuthToken, OAuthGrant, error)
	// OAuthAccess returns the access token with hash and its grant, or
	// ErrNotFound when it is unknown, expired or its grant is revoked. It
	// always reads the database, so a revocation on another replica is
	// seen at once.
	OAuthAccess(ctx context.Context, hash string) (OAuthToken, OAuthGrant, error)
	// ListOAuthGrants returns the live grants of the user with userID,
	// newest first.
	ListOAuthGrants(ctx context.Context, userID string) ([]OAuthGrant, error)
	// RevokeOAuthGrant revokes the live grant id of the user with userID
	// and announces it on [TopicOAuthGrants]. ErrNotFound when that user
	// has no such live grant: another user's grant is never touched.
	RevokeOAuthGrant(ctx context.Context, userID, id string) error
}
