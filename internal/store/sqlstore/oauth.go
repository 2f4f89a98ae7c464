package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// PutOAuthClient implements [store.Store].
func (db *DB) PutOAuthClient(ctx context.Context, c store.OAuthClient) error {
	if c.ID == "" || len(c.RedirectURIs) == 0 ||
		(c.Source != store.OAuthClientRegistered && c.Source != store.OAuthClientMetadata) {
		return fmt.Errorf("storing oauth client: %w: an ID, redirect URIs and a source are required", store.ErrInvalid)
	}
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return fmt.Errorf("storing oauth client %q: %w", c.ID, err)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, source, created_at) VALUES (?, ?, ?, ?, ?)`,
		c.ID, c.Name, string(uris), string(c.Source), db.ts(orNow(c.CreatedAt))); err != nil {
		return fmt.Errorf("storing oauth client %q: %w", c.ID, db.classify(err))
	}
	return nil
}

// GetOAuthClient implements [store.Store].
func (db *DB) GetOAuthClient(ctx context.Context, id string) (store.OAuthClient, error) {
	c := store.OAuthClient{ID: id}
	var uris, source string
	err := db.r.QueryRowContext(ctx, `SELECT name, redirect_uris, source, created_at FROM oauth_clients WHERE id = ?`, id).
		Scan(&c.Name, &uris, &source, tsCol{&c.CreatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return store.OAuthClient{}, fmt.Errorf("oauth client %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.OAuthClient{}, fmt.Errorf("reading oauth client %q: %w", id, db.classify(err))
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return store.OAuthClient{}, fmt.Errorf("oauth client %q redirect URIs: %w", id, err)
	}
	c.Source = store.OAuthClientSource(source)
	return c, nil
}

// CreateOAuthGrant implements [store.Store].
func (db *DB) CreateOAuthGrant(ctx context.Context, g store.OAuthGrant) (store.OAuthGrant, error) {
	if g.UserID == "" || g.ClientID == "" || g.Resource == "" {
		return store.OAuthGrant{}, fmt.Errorf("creating oauth grant: %w: user, client and resource are required", store.ErrInvalid)
	}
	g.ID = store.NewID()
	g.CreatedAt = orNow(g.CreatedAt)
	g.RevokedAt = norm(g.RevokedAt)
	if g.Scopes == nil {
		g.Scopes = []string{}
	}
	scopes, err := json.Marshal(g.Scopes)
	if err != nil {
		return store.OAuthGrant{}, fmt.Errorf("creating oauth grant: %w", err)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO oauth_grants (id, user_id, client_id, resource, scopes, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.UserID, g.ClientID, g.Resource, string(scopes), db.ts(g.CreatedAt), db.ts(g.RevokedAt)); err != nil {
		return store.OAuthGrant{}, fmt.Errorf("creating oauth grant for client %q: %w", g.ClientID, db.classify(err))
	}
	return g, nil
}

// PutOAuthToken implements [store.Store].
func (db *DB) PutOAuthToken(ctx context.Context, t store.OAuthToken) error {
	if t.Hash == "" || t.GrantID == "" || t.ExpiresAt.IsZero() ||
		(t.Kind != store.OAuthCode && t.Kind != store.OAuthAccess && t.Kind != store.OAuthRefresh) {
		return fmt.Errorf("storing oauth token: %w: hash, grant, kind and expiry are required", store.ErrInvalid)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at, redirect_uri, challenge, used_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		t.Hash, t.GrantID, string(t.Kind), db.ts(norm(t.ExpiresAt)), t.RedirectURI, t.Challenge, db.ts(norm(t.UsedAt)), db.ts(orNow(t.CreatedAt))); err != nil {
		return fmt.Errorf("storing oauth %s token: %w", t.Kind, db.classify(err))
	}
	return nil
}

const oauthTokenCols = `t.hash, t.grant_id, t.kind, t.expires_at, t.redirect_uri, t.challenge, t.used_at, t.created_at,
	g.id, g.user_id, g.client_id, g.resource, g.scopes, g.created_at, g.revoked_at`

func scanOAuthToken(row interface{ Scan(...any) error }) (store.OAuthToken, store.OAuthGrant, error) {
	var (
		t            store.OAuthToken
		g            store.OAuthGrant
		kind, scopes string
	)
	if err := row.Scan(&t.Hash, &t.GrantID, &kind, tsCol{&t.ExpiresAt}, &t.RedirectURI, &t.Challenge, tsCol{&t.UsedAt}, tsCol{&t.CreatedAt},
		&g.ID, &g.UserID, &g.ClientID, &g.Resource, &scopes, tsCol{&g.CreatedAt}, tsCol{&g.RevokedAt}); err != nil {
		return t, g, err
	}
	t.Kind = store.OAuthTokenKind(kind)
	if err := json.Unmarshal([]byte(scopes), &g.Scopes); err != nil {
		return t, g, fmt.Errorf("oauth grant %s scopes: %w", g.ID, err)
	}
	return t, g, nil
}

// tokenAndGrant reads the token with hash and kind and its grant, with no
// liveness condition.
func (db *DB) tokenAndGrant(ctx context.Context, q queryRower, hash string, kind store.OAuthTokenKind) (store.OAuthToken, store.OAuthGrant, error) {
	t, g, err := scanOAuthToken(q.QueryRowContext(ctx, `SELECT `+oauthTokenCols+`
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ? AND t.kind = ?`, hash, string(kind)))
	if errors.Is(err, sql.ErrNoRows) {
		return t, g, fmt.Errorf("oauth %s token: %w", kind, store.ErrNotFound)
	}
	if err != nil {
		return t, g, fmt.Errorf("reading oauth %s token: %w", kind, db.classify(err))
	}
	return t, g, nil
}

// UseOAuthToken implements [store.Store]. The redemption is one UPDATE
// conditioned on used_at being NULL, so of two replicas redeeming the same
// code at once exactly one wins; the loser sees it used and revokes the
// grant, as a replay must.
func (db *DB) UseOAuthToken(ctx context.Context, hash string, kind store.OAuthTokenKind) (store.OAuthToken, store.OAuthGrant, error) {
	if kind != store.OAuthCode && kind != store.OAuthRefresh {
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("redeeming oauth token: %w: only codes and refresh tokens are redeemed", store.ErrInvalid)
	}
	at := now()
	res, err := db.w.ExecContext(ctx, `UPDATE oauth_tokens SET used_at = ? WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?
		AND grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at IS NULL)`,
		db.ts(at), hash, string(kind), db.ts(at))
	if err != nil {
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("redeeming oauth %s: %w", kind, db.classify(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("redeeming oauth %s: %w", kind, db.classify(err))
	}
	t, g, err := db.tokenAndGrant(ctx, db.w, hash, kind)
	switch {
	case err != nil:
		return store.OAuthToken{}, store.OAuthGrant{}, err
	case n == 1:
		return t, g, nil
	case !t.UsedAt.IsZero():
		if err := db.revokeGrant(ctx, g.ID); err != nil {
			return store.OAuthToken{}, store.OAuthGrant{}, err
		}
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("redeeming oauth %s: %w", kind, store.ErrReplayed)
	default: // expired, or its grant revoked
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("oauth %s token: %w", kind, store.ErrNotFound)
	}
}

// OAuthAccess implements [store.Store].
func (db *DB) OAuthAccess(ctx context.Context, hash string) (store.OAuthToken, store.OAuthGrant, error) {
	t, g, err := db.tokenAndGrant(ctx, db.r, hash, store.OAuthAccess)
	if err != nil {
		return store.OAuthToken{}, store.OAuthGrant{}, err
	}
	if !g.RevokedAt.IsZero() || !t.ExpiresAt.After(now()) {
		return store.OAuthToken{}, store.OAuthGrant{}, fmt.Errorf("oauth access token: %w", store.ErrNotFound)
	}
	return t, g, nil
}

// ListOAuthGrants implements [store.Store].
func (db *DB) ListOAuthGrants(ctx context.Context, userID string) ([]store.OAuthGrant, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, client_id, resource, scopes, created_at FROM oauth_grants
		WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("listing oauth grants: %w", db.classify(err))
	}
	defer rows.Close()
	var out []store.OAuthGrant
	for rows.Next() {
		g := store.OAuthGrant{UserID: userID}
		var scopes string
		if err := rows.Scan(&g.ID, &g.ClientID, &g.Resource, &scopes, tsCol{&g.CreatedAt}); err != nil {
			return nil, fmt.Errorf("listing oauth grants: %w", err)
		}
		if err := json.Unmarshal([]byte(scopes), &g.Scopes); err != nil {
			return nil, fmt.Errorf("oauth grant %s scopes: %w", g.ID, err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing oauth grants: %w", db.classify(err))
	}
	return out, nil
}

// RevokeOAuthGrant implements [store.Store].
func (db *DB) RevokeOAuthGrant(ctx context.Context, userID, id string) error {
	res, err := db.w.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`,
		db.ts(now()), id, userID)
	if err != nil {
		return fmt.Errorf("revoking oauth grant %s: %w", id, db.classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("revoking oauth grant %s: %w", id, db.classify(err))
	} else if n == 0 {
		return fmt.Errorf("revoking oauth grant %s: %w", id, store.ErrNotFound)
	}
	db.changed(ctx, store.TopicOAuthGrants, id)
	return nil
}

// revokeGrant revokes grant id whoever holds it (a replay was seen).
func (db *DB) revokeGrant(ctx context.Context, id string) error {
	if _, err := db.w.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, db.ts(now()), id); err != nil {
		return fmt.Errorf("revoking oauth grant %s after a replay: %w", id, db.classify(err))
	}
	db.changed(ctx, store.TopicOAuthGrants, id)
	return nil
}
