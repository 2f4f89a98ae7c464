package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Kind is what a secret string handed out by the authorization server is.
type Kind string

// The kinds of secret, told apart by prefix. Each prefix starts with the
// API key prefix "sb_" so that the server's bearer parsing counts an
// OAuth token as a Switchboard credential (checked, never taken for "no
// key" in anonymous mode), and continues with a '.', which base64url
// never produces, so no API key ("sb_" + base64url) can be read as a
// token or the other way round.
const (
	KindAccess  Kind = "sb_at."
	KindRefresh Kind = "sb_rt."
	KindCode    Kind = "sb_ac."
)

// NewSecret returns a new secret of kind k (its prefix plus 32 random
// bytes, base64url) and its hash, the lowercase hex SHA-256 of the whole
// secret. Store only the hash; the secret is given to the client once.
func NewSecret(k Kind) (secret, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	secret = string(k) + base64.RawURLEncoding.EncodeToString(b)
	return secret, Hash(secret)
}

// Hash returns the lowercase hex SHA-256 of secret, as stored.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// KindOf returns the kind of secret and true, or false for a string that
// is none of them (an API key, say).
func KindOf(secret string) (Kind, bool) {
	for _, k := range []Kind{KindAccess, KindRefresh, KindCode} {
		if strings.HasPrefix(secret, string(k)) {
			return k, true
		}
	}
	return "", false
}
