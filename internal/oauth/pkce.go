package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
)

// MethodS256 is the only PKCE code challenge method accepted. OAuth 2.1
// and the MCP authorization spec require S256 where the client can do it,
// and every client that matters can; "plain" would let whoever sees the
// authorization request (a log, a browser history) redeem the code.
const MethodS256 = "S256"

// PKCE errors. Each is an invalid_request (authorization endpoint) or an
// invalid_grant (token endpoint); the text says what the client must do.
var (
	ErrPKCEMissing   = errors.New("code_challenge is required: send a PKCE S256 challenge (RFC 7636)")
	ErrPKCEMethod    = errors.New("code_challenge_method must be S256; plain and other methods are refused")
	ErrPKCEMalformed = errors.New("code_challenge must be the 43-character base64url SHA-256 of the verifier")
	ErrVerifierForm  = errors.New("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1)")
	ErrPKCEMismatch  = errors.New("code_verifier does not match the code_challenge of the authorization request")
)

// CheckChallenge reports, at the authorization endpoint, why a request's
// code_challenge and code_challenge_method are refused, or nil. A missing
// method is refused too (RFC 7636 would default it to plain).
func CheckChallenge(method, challenge string) error {
	if challenge == "" {
		return ErrPKCEMissing
	}
	if method != MethodS256 {
		return ErrPKCEMethod
	}
	// base64url without padding of 32 bytes is 43 characters.
	if b, err := base64.RawURLEncoding.DecodeString(challenge); err != nil || len(b) != sha256.Size {
		return ErrPKCEMalformed
	}
	return nil
}

// VerifyPKCE reports, at the token endpoint, whether verifier answers the
// S256 challenge recorded with the code: nil if it does. The comparison
// takes the same time wherever the two differ.
func VerifyPKCE(challenge, verifier string) error {
	if !verifierForm(verifier) {
		return ErrVerifierForm
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) != 1 {
		return ErrPKCEMismatch
	}
	return nil
}

// S256 returns the S256 challenge of verifier, as a client computes it.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// verifierForm reports whether v has the length and alphabet of RFC 7636
// section 4.1.
func verifierForm(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := range len(v) {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}
