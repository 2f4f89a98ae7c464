package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"path"
	"strings"

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

// AnonymousUser is the name anonymous requests act as when
// [Options].AllowAnonymous is set.
const AnonymousUser = "local"

// User is the caller of a request.
type User struct {
	// ID and Name come from the store; anonymous callers have ID "" and
	// Name [AnonymousUser].
	ID   string
	Name string
	// Permissions are tool-name globs ([path.Match] syntax); nil means
	// every tool (the anonymous local user), empty means none.
	Permissions []string
	Anonymous   bool
}

// Permits reports whether u may see and call the catalogue tool name.
func (u *User) Permits(name string) bool {
	if u.Permissions == nil {
		return true
	}
	for _, g := range u.Permissions {
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
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

// authenticate returns the request's user from its bearer key.
func (s *Server) authenticate(r *http.Request) (User, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if s.opts.AllowAnonymous && (s.opts.StillAnonymous == nil || s.opts.StillAnonymous()) {
			return User{Name: AnonymousUser, Anonymous: true}, nil
		}
		return User{}, errUnauthorized
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(key, KeyPrefix) {
		return User{}, errUnauthorized
	}
	u, err := s.store.GetUserByKeyHash(r.Context(), HashKey(strings.TrimSpace(key)))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return User{}, errUnauthorized
	case err != nil:
		return User{}, err
	case u.Disabled:
		return User{}, &Error{Status: http.StatusForbidden, Code: "disabled", Msg: "this user is disabled"}
	}
	perms := u.Permissions
	if perms == nil {
		perms = []string{} // a stored user without permissions may call nothing
	}
	return User{ID: u.ID, Name: u.Name, Permissions: perms}, nil
}
