package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// userCreds keeps each user's own credentials for per-user upstreams
// (credentials: perUser): sealed with the operator's key, bound to the
// user and the upstream, in the store that every replica shares. It
// implements [server.UserConnections], and its lookup is the pool's
// [mcphost.Options.UserCredential].
type userCreds struct{ a *App }

var _ server.UserConnections = userCreds{}

// connectPath is where a user connects their credentials: the REST route.
const connectPath = "/api/v1/connections/"

// credAD binds a sealed credential to its user and upstream, so a sealed
// value copied onto another user's row (or another upstream's) does not
// open. Config entries seal with kind/name; "usercred" is no kind.
func credAD(userID, upstream string) string { return "usercred/" + userID + "/" + upstream }

// perUser returns the per-user settings of the live configuration's MCP
// server or OpenAPI service name, with its kind, or ok false when it is
// not a per-user upstream.
func perUserUpstream(cfg *config.Config, name string) (kind string, pu *config.PerUser, ok bool) {
	if s, found := cfg.MCPServers[name]; found && !s.Disabled {
		if pu := config.PerUserOf(s.Credentials, s.PerUser); pu != nil {
			if s.Command != "" && pu.Env == "" {
				return "", nil, false // nothing to supply: each user still gets a process
			}
			return store.EntryServer, pu, true
		}
	}
	if s, found := cfg.OpenAPIServers[name]; found && !s.Disabled {
		if pu := config.PerUserOf(s.Credentials, s.PerUser); pu != nil {
			return store.EntryOpenAPI, pu, true
		}
	}
	return "", nil, false
}

// takes says what the user supplies for pu.
func takes(pu *config.PerUser) string {
	switch {
	case pu.Env != "":
		return "env " + pu.Env
	case *pu.Prefix == "Bearer ":
		return "bearer token"
	}
	return "header " + pu.Header
}

// lookup returns the value user connected for upstream, opened; an error
// wrapping [mcphost.ErrNoCredential] that names the upstream and where to
// connect when they have none. The local user has no store ID and so no
// credentials: per-user upstreams refuse its calls rather than fall back
// to anyone's.
func (u userCreds) lookup(ctx context.Context, upstream, user string) (string, error) {
	if user == "" {
		return "", fmt.Errorf("%s needs each user's own credentials, and the local user has none: call it as a user of this Switchboard: %w",
			upstream, mcphost.ErrNoCredential)
	}
	st, err := u.a.Store(ctx)
	if err != nil {
		return "", err
	}
	c, err := st.GetUserCredential(ctx, user, upstream)
	if errors.Is(err, store.ErrNotFound) {
		if _, ok := oauthUpstream(u.a.config(), upstream); ok {
			return "", fmt.Errorf("%s needs you to sign in to it and you have not connected it: press Connect for it on the web UI's Connections page (%s): %w",
				upstream, connectionsPage, mcphost.ErrNoCredential)
		}
		return "", fmt.Errorf("%s needs your own credentials and you have not connected them: connect them on the web UI's Connections page (/connections), with PUT %s%s {\"value\": ...}, or ask the operator (switchboard connections set %s --user NAME): %w",
			upstream, connectPath, upstream, upstream, mcphost.ErrNoCredential)
	}
	if err != nil {
		return "", err
	}
	s, err := u.a.entries.sealer()
	if err != nil {
		return "", err
	}
	plain, err := s.open(c.Sealed, credAD(user, upstream))
	if err != nil {
		if oc, ok := u.openOAuth(c); ok {
			return u.oauthToken(ctx, c, oc)
		}
		return "", fmt.Errorf("opening your credentials for %s: %w", upstream, err)
	}
	// Whatever prints it by mistake (a server's stderr, an error quoting
	// a header) shows it masked.
	u.a.secrets.Add(string(plain))
	return string(plain), nil
}

// ListConnections implements [server.UserConnections]: every per-user
// upstream of the live configuration, connected or not.
func (u userCreds) ListConnections(ctx context.Context, userID string) ([]server.Connection, error) {
	st, err := u.a.Store(ctx)
	if err != nil {
		return nil, err
	}
	have, err := st.ListUserCredentials(ctx, userID)
	if err != nil {
		return nil, err
	}
	byServer := make(map[string]store.UserCredential, len(have))
	for _, c := range have {
		byServer[c.Server] = c
	}
	cfg := u.a.config()
	names := slices.Concat(slices.Collect(maps.Keys(cfg.MCPServers)), slices.Collect(maps.Keys(cfg.OpenAPIServers)))
	slices.Sort(names)
	var out []server.Connection
	for _, name := range slices.Compact(names) {
		kind, pu, ok := perUserUpstream(cfg, name)
		if !ok {
			continue
		}
		c, connected := byServer[name]
		conn := server.Connection{Server: name, Kind: kind, Takes: takes(pu), Connected: connected, Since: c.CreatedAt, UpdatedAt: c.UpdatedAt}
		if _, ok := oauthUpstream(cfg, name); ok {
			conn.Takes, conn.OAuth = takesOAuth, true
			if connected {
				conn.Reconnect = u.reconnectReason(ctx, userID, name)
				conn.Connected = conn.Reconnect == ""
			}
		}
		out = append(out, conn)
	}
	return out, nil
}

// reconnectReason says why the user's OAuth grant for upstream needs a
// reconnect, or "" when it is usable (or is an entered value).
func (u userCreds) reconnectReason(ctx context.Context, userID, upstream string) string {
	st, err := u.a.Store(ctx)
	if err != nil {
		return ""
	}
	c, err := st.GetUserCredential(ctx, userID, upstream)
	if err != nil {
		return ""
	}
	if oc, ok := u.openOAuth(c); ok {
		return oc.Reconnect
	}
	return ""
}

// Connect implements [server.UserConnections].
func (u userCreds) Connect(ctx context.Context, userID, upstream, value string) (server.Connection, error) {
	kind, pu, ok := perUserUpstream(u.a.config(), upstream)
	if !ok {
		return server.Connection{}, fmt.Errorf("%q is not a server that takes each user's own credentials: %w", upstream, store.ErrNotFound)
	}
	if value == "" {
		return server.Connection{}, fmt.Errorf("the value is empty: %w", store.ErrInvalid)
	}
	s, err := u.a.entries.sealer()
	if err != nil {
		return server.Connection{}, err
	}
	st, err := u.a.Store(ctx)
	if err != nil {
		return server.Connection{}, err
	}
	c, err := st.PutUserCredential(ctx, store.UserCredential{UserID: userID, Server: upstream, Sealed: s.seal([]byte(value), credAD(userID, upstream))})
	if err != nil {
		return server.Connection{}, err
	}
	u.a.secrets.Add(value)
	return server.Connection{Server: upstream, Kind: kind, Takes: takes(pu), Connected: true, Since: c.CreatedAt, UpdatedAt: c.UpdatedAt}, nil
}

// Disconnect implements [server.UserConnections]. The next call of the
// user's on any replica finds no credential and stops using the old one.
func (u userCreds) Disconnect(ctx context.Context, userID, upstream string) error {
	st, err := u.a.Store(ctx)
	if err != nil {
		return err
	}
	return st.DeleteUserCredential(ctx, userID, upstream)
}

// UserConnections returns the app's keeper of users' own credentials, for
// the HTTP API and the CLI.
func (a *App) UserConnections() server.UserConnections { return userCreds{a: a} }

// openapiUserHeader returns, for a per-user OpenAPI service, the header
// each call carries: the caller's own value after the configured prefix.
// nil for a service whose credentials are shared.
func (a *App) openapiUserHeader(name string, sc config.OpenAPIServer) func(ctx context.Context) (string, string, error) {
	pu := config.PerUserOf(sc.Credentials, sc.PerUser)
	if pu == nil {
		return nil
	}
	return func(ctx context.Context) (string, string, error) {
		v, err := userCreds{a: a}.lookup(ctx, name, tools.UserOf(ctx))
		if err != nil {
			return "", "", err
		}
		return pu.Header, *pu.Prefix + v, nil
	}
}

// UserIDByName returns the store ID of the named user, for the CLI, which
// acts for the user it names (whoever runs it holds the database and key).
func (a *App) UserIDByName(ctx context.Context, name string) (string, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return "", err
	}
	u, err := st.GetUserByName(ctx, name)
	if err != nil {
		return "", err
	}
	return u.ID, nil
}
