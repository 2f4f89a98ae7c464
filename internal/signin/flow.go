package signin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
)

// Flow is one sign-in under way: the secrets that bind the provider's
// answer to the browser that asked. The server keeps it in a short-lived
// HttpOnly cookie of that browser, so the answer is accepted only there.
type Flow struct {
	// State is sent to the provider and must come back unchanged (CSRF
	// on the callback, RFC 6749 section 10.12).
	State string
	// Nonce is sent to the provider and must be in the ID token (replay
	// of an ID token, OpenID Connect Core section 3.1.2.1).
	Nonce string
	// Verifier is the PKCE code verifier; its S256 challenge is sent
	// (RFC 7636), so a stolen code is useless without it.
	Verifier string
}

// NewFlow returns a flow of fresh random secrets (32 bytes each).
func NewFlow() Flow {
	return Flow{State: random(), Nonce: random(), Verifier: random()}
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// Encode returns f as a cookie value.
func (f Flow) Encode() string { return f.State + "." + f.Nonce + "." + f.Verifier }

// ErrBadFlow means a flow cookie is missing or malformed.
var ErrBadFlow = errors.New("the sign-in cookie is missing or malformed")

// ParseFlow reads a cookie value written by [Flow.Encode].
func ParseFlow(s string) (Flow, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Flow{}, ErrBadFlow
	}
	for _, p := range parts {
		if len(p) != 43 { // 32 bytes, base64url without padding
			return Flow{}, ErrBadFlow
		}
		if _, err := base64.RawURLEncoding.DecodeString(p); err != nil {
			return Flow{}, ErrBadFlow
		}
	}
	return Flow{State: parts[0], Nonce: parts[1], Verifier: parts[2]}, nil
}

// StateMatches reports whether state, as the provider sent it back, is
// f's, in constant time.
func (f Flow) StateMatches(state string) bool {
	return f.State != "" && subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) == 1
}
