package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// KeyPrefix starts every Switchboard API key, so that keys are easy to
// recognise in logs and secret scanners.
const KeyPrefix = "sb_"

// NewAPIKey returns a new API key (KeyPrefix plus 32 random bytes, base64url)
// and its hash, the lowercase hex SHA-256 of the key. Store only the hash
// ([store.User].KeyHash); show the key to the user once.
func NewAPIKey() (key, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	key = KeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, HashKey(key)
}

// HashKey returns the lowercase hex SHA-256 of key, as stored in
// [store.User].KeyHash.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// AnonymousUser is the name anonymous requests act as while
// [Options].AllowAnonymous is set and no user exists. No stored user can
// have it ([store.User].Validate refuses it).
const AnonymousUser = store.AnonymousUser

// User is the caller of a request. What it may do is decided by ID (and
// the flags below, read from the store by ID), never by Name.
type User struct {
	// ID and Name come from the store; anonymous callers have ID "" and
	// Name [AnonymousUser].
	ID   string
	Name string
	// Permissions are tool-name globs ([path.Match] syntax); nil means
	// every tool (the anonymous local user), empty means none.
	Permissions []string
	Anonymous   bool
	// Admin may manage agents, servers and users and read every user's
	// audit records. The anonymous local user is an admin.
	Admin bool
	// OAuthClient is the client_id of the OAuth client the request came
	// through, "" for an API key.
	OAuthClient string
	// Session is set when the request was signed in by a web session
	// cookie: its unsafe requests must pass the CSRF check.
	Session bool
}

// role is u's role: the anonymous local user is an admin.
func (u *User) role() store.Role {
	if u.Admin {
		return store.RoleAdmin
	}
	return store.RoleUser
}

// key identifies the user in per-user limits: its ID, so that a user
// re-created under an old name starts afresh.
func (u *User) key() string {
	if u.Anonymous {
		return "anonymous"
	}
	return "id:" + u.ID
}

// Permits reports whether u may see and call the catalogue tool name.
func (u *User) Permits(name string) bool {
	c := u.caller()
	return c.Permits(name)
}

type userKey struct{}

// UserFrom returns the authenticated user of a request's context, as the
// server put it there before calling any handler (the /mcp handler too).
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

func withUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

var errUnauthorized = &Error{
	Status: http.StatusUnauthorized, Code: "unauthorized",
	Msg: "missing or invalid API key: send Authorization: Bearer sb_... (create a key with `switchboard users add NAME`)",
}

// authenticate returns the request's user from its bearer key. While
// anonymous access is allowed (a loopback listener and no user yet), a
// request without a Switchboard key acts as the anonymous user: the
// official OpenAI clients always send "Authorization: Bearer <something>",
// so a bearer that is not a Switchboard key ("sb_...") counts as none. An
// "sb_" key is always checked: an unknown one is 401 in every mode.
func (s *Server) authenticate(r *http.Request, pattern string) (User, error) {
	key, hasKey := bearerKey(r.Header.Get("Authorization"))
	if !hasKey && s.opts.SignIn != nil {
		// A session cookie counts where no key is sent: a key says who
		// the caller is more directly than the browser's cookie jar.
		if v := s.sessionValue(r); v != "" {
			return s.authenticateSession(r, v)
		}
	}
	if !hasKey {
		// The cached view answers "users exist" without a read (stale only
		// toward refusing); "no user" is confirmed against the store.
		if s.opts.AllowAnonymous && s.users.MayBeEmpty(r.Context()) {
			empty, err := s.users.Empty(r.Context())
			if err != nil {
				return User{}, err
			}
			if empty && s.hostAllowed(r.Host, true) {
				return User{Name: AnonymousUser, Anonymous: true, Admin: true}, nil
			}
		}
		return User{}, errUnauthorized
	}
	if _, isToken := oauth.KindOf(key); isToken {
		return s.authenticateToken(r, key, pattern)
	}
	u, ok, err := s.users.ByKeyHash(r.Context(), HashKey(key))
	switch {
	case err != nil:
		return User{}, err
	case !ok:
		return User{}, errUnauthorized
	case u.Disabled:
		return User{}, errDisabled
	}
	return userOf(u), nil
}

var errDisabled = &Error{Status: http.StatusForbidden, Code: "disabled", Msg: "this user is disabled; the operator can enable it with `switchboard users set NAME --enable`"}

// userOf is the request's view of a stored user.
func userOf(u store.User) User {
	perms := u.Permissions
	if perms == nil {
		perms = []string{} // a stored user without permissions may call nothing
	}
	return User{ID: u.ID, Name: u.Name, Permissions: perms, Admin: u.Role.ManagesShared()}
}

// bearerKey returns the Switchboard key of an Authorization header value,
// and whether it holds one. Anything else (no header, another scheme, a
// bearer without the "sb_" prefix) holds none.
func bearerKey(h string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, KeyPrefix) {
		return "", false
	}
	return key, true
}
