package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Per-user OAuth to a remote MCP server's own authorization server: a user
// presses Connect on the web UI's Connections page, the browser goes to
// that server's authorization server and comes back to
// the web UI's callback page, which finishes the authorization as the
// signed-in user (server.ConnectionsCallbackPath). The pending authorization is in the store (any replica
// finishes it, once, for the user who began it), and the token is sealed
// like an entered value, under its own additional data so that no value a
// user enters can pass for a token grant.

// connectionsPage is where users connect, named in every error that asks
// them to.
const connectionsPage = "/connections"

// authStateTTL bounds how long an authorization may take in the browser.
const authStateTTL = 10 * time.Minute

var _ server.UpstreamAuthorizer = userCreds{}

// tokenAD binds a sealed OAuth grant to its user and upstream.
func tokenAD(userID, upstream string) string { return "usercred-oauth/" + userID + "/" + upstream }

// stateAD binds a pending authorization to its user, upstream and state.
func stateAD(userID, upstream, stateHash string) string {
	return "upstream-auth/" + userID + "/" + upstream + "/" + stateHash
}

// oauthCred is what is sealed for a user who connected by OAuth.
type oauthCred struct {
	Token mcphost.UserToken `json:"token"`
	// Reconnect, when set, says why the token can no longer be used (its
	// refresh failed); the token fields are then empty.
	Reconnect string `json:"reconnect,omitempty"`
}

// oauthUpstream returns the live configuration of name when it is a
// per-user remote MCP server whose users connect by OAuth: one with an
// oauth block for a person's grant (not client_credentials).
func oauthUpstream(cfg *config.Config, name string) (config.MCPServer, bool) {
	s, ok := cfg.MCPServers[name]
	if !ok || s.Disabled || s.URL == "" || s.OAuth == nil || s.OAuth.Grant == config.GrantClientCredentials {
		return config.MCPServer{}, false
	}
	if config.PerUserOf(s.Credentials, s.PerUser) == nil {
		return config.MCPServer{}, false
	}
	return s, true
}

func hashState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// BeginAuthorization implements [server.UpstreamAuthorizer].
func (u userCreds) BeginAuthorization(ctx context.Context, userID, upstream, redirectURL string) (string, error) {
	cfg := u.a.config()
	s, ok := oauthUpstream(cfg, upstream)
	if !ok {
		return "", fmt.Errorf("%q is not a server you connect to by signing in (OAuth): %w", upstream, store.ErrNotFound)
	}
	seal, err := u.a.entries.sealer()
	if err != nil {
		return "", err
	}
	st, err := u.a.Store(ctx)
	if err != nil {
		return "", err
	}
	state := rand.Text()
	sc := mcpServer(cfg, upstream, s)
	authURL, pending, err := mcphost.BeginUserAuthorization(ctx, s.URL, sc.OAuth, redirectURL, state, u.a.oauthClient)
	if err != nil {
		return "", fmt.Errorf("starting the authorization with %s: %w", upstream, err)
	}
	plain, err := json.Marshal(pending)
	if err != nil {
		return "", err
	}
	h := hashState(state)
	err = st.PutUpstreamAuthState(ctx, store.UpstreamAuthState{
		StateHash: h, UserID: userID, Server: upstream,
		Sealed: seal.seal(plain, stateAD(userID, upstream, h)), ExpiresAt: time.Now().Add(authStateTTL),
	})
	if err != nil {
		return "", err
	}
	return authURL, nil
}

// FinishAuthorization implements [server.UpstreamAuthorizer]. The state
// is taken for userID alone: another user's state, one used before, an
// expired or a made-up one are all "no such authorization", and another
// user's stays for its owner.
func (u userCreds) FinishAuthorization(ctx context.Context, userID string, cb server.AuthorizationCallback) (server.Connection, error) {
	if cb.State == "" {
		return server.Connection{}, fmt.Errorf("the callback has no state: start again with Connect on the Connections page: %w", store.ErrInvalid)
	}
	st, err := u.a.Store(ctx)
	if err != nil {
		return server.Connection{}, err
	}
	h := hashState(cb.State)
	p, err := st.TakeUpstreamAuthState(ctx, h, userID)
	if errors.Is(err, store.ErrNotFound) {
		return server.Connection{}, fmt.Errorf("no authorization of yours is waiting for this answer (it was finished already, expired, or began in another user's session): start again with Connect on the Connections page: %w", store.ErrNotFound)
	}
	if err != nil {
		return server.Connection{}, err
	}
	seal, err := u.a.entries.sealer()
	if err != nil {
		return server.Connection{}, err
	}
	plain, err := seal.open(p.Sealed, stateAD(userID, p.Server, h))
	if err != nil {
		return server.Connection{}, fmt.Errorf("the pending authorization does not open for this user and server: %w", store.ErrInvalid)
	}
	var pending mcphost.UserAuthorization
	if err := json.Unmarshal(plain, &pending); err != nil {
		return server.Connection{}, fmt.Errorf("decoding the pending authorization: %w", err)
	}
	if cb.Error != "" {
		return server.Connection{}, fmt.Errorf("the authorization server of %s refused: %s %s: %w", p.Server, cb.Error, cb.ErrorDescription, store.ErrInvalid)
	}
	if cb.Code == "" {
		return server.Connection{}, fmt.Errorf("the callback has no code: %w", store.ErrInvalid)
	}
	s, ok := oauthUpstream(u.a.config(), p.Server)
	if !ok || s.URL != pending.Resource {
		return server.Connection{}, fmt.Errorf("%s changed while you were signing in; connect again: %w", p.Server, store.ErrInvalid)
	}
	tok, err := pending.Exchange(ctx, cb.Code, cb.Iss, u.a.oauthClient)
	if err != nil {
		return server.Connection{}, fmt.Errorf("connecting %s: %v: %w", p.Server, err, store.ErrInvalid)
	}
	c, err := u.putOAuth(ctx, userID, p.Server, oauthCred{Token: tok})
	if err != nil {
		return server.Connection{}, err
	}
	return server.Connection{Server: p.Server, Kind: store.EntryServer, Takes: takesOAuth, OAuth: true, Connected: true, Since: c.CreatedAt, UpdatedAt: c.UpdatedAt}, nil
}

// takesOAuth is what a user supplies to a server they connect to by OAuth.
const takesOAuth = "sign-in (OAuth)"

func (u userCreds) putOAuth(ctx context.Context, userID, upstream string, c oauthCred) (store.UserCredential, error) {
	seal, err := u.a.entries.sealer()
	if err != nil {
		return store.UserCredential{}, err
	}
	st, err := u.a.Store(ctx)
	if err != nil {
		return store.UserCredential{}, err
	}
	plain, err := json.Marshal(c)
	if err != nil {
		return store.UserCredential{}, err
	}
	u.a.secrets.Add(c.Token.AccessToken)
	u.a.secrets.Add(c.Token.RefreshToken)
	return st.PutUserCredential(ctx, store.UserCredential{UserID: userID, Server: upstream, Sealed: seal.seal(plain, tokenAD(userID, upstream))})
}

// openOAuth opens c as an OAuth grant; ok false when it is an entered
// value instead.
func (u userCreds) openOAuth(c store.UserCredential) (oauthCred, bool) {
	seal, err := u.a.entries.sealer()
	if err != nil {
		return oauthCred{}, false
	}
	plain, err := seal.open(c.Sealed, tokenAD(c.UserID, c.Server))
	if err != nil {
		return oauthCred{}, false
	}
	var oc oauthCred
	if json.Unmarshal(plain, &oc) != nil {
		return oauthCred{}, false
	}
	return oc, true
}

// reconnectError is the tool error of a user whose OAuth grant for
// upstream cannot be used, with the link to connect again.
func reconnectError(upstream, why string) error {
	return fmt.Errorf("%s needs you to connect again (%s): press Connect for it on the web UI's Connections page (%s): %w",
		upstream, why, connectionsPage, mcphost.ErrNoCredential)
}

// oauthToken returns the access token of the user's grant for upstream,
// refreshed first when it has expired. A refresh that fails marks the
// grant as needing a reconnect (on every replica: it is in the store),
// unless another replica refreshed it meanwhile.
func (u userCreds) oauthToken(ctx context.Context, c store.UserCredential, oc oauthCred) (string, error) {
	upstream := c.Server
	if oc.Reconnect != "" {
		return "", reconnectError(upstream, oc.Reconnect)
	}
	if s, ok := oauthUpstream(u.a.config(), upstream); !ok || s.URL != oc.Token.Resource {
		// The name now points elsewhere: the token is not sent there.
		return "", reconnectError(upstream, "the server's address changed since you connected")
	}
	if !oc.Token.Expired(time.Now()) {
		u.a.secrets.Add(oc.Token.AccessToken)
		return oc.Token.AccessToken, nil
	}
	fresh, err := oc.Token.Refresh(ctx, u.a.oauthClient)
	if err == nil {
		if _, err := u.putOAuth(ctx, c.UserID, upstream, oauthCred{Token: fresh}); err != nil {
			return "", err
		}
		return fresh.AccessToken, nil
	}
	st, serr := u.a.Store(ctx)
	if serr != nil {
		return "", serr
	}
	if now, gerr := st.GetUserCredential(ctx, c.UserID, upstream); gerr == nil && !now.UpdatedAt.Equal(c.UpdatedAt) {
		if noc, ok := u.openOAuth(now); ok && noc.Reconnect == "" && !noc.Token.Expired(time.Now()) {
			return noc.Token.AccessToken, nil
		}
	}
	why := "your sign-in expired and could not be renewed: " + err.Error()
	if _, perr := u.putOAuth(ctx, c.UserID, upstream, oauthCred{Reconnect: why}); perr != nil {
		return "", perr
	}
	u.a.logger.WarnContext(ctx, "per-user oauth refresh failed; the user must connect again",
		logKeyServer, upstream, logKeyUser, c.UserID, logKeyErr, err)
	return "", reconnectError(upstream, why)
}
