package oauth

import (
	"errors"
	"fmt"
	"net/url"
)

// ErrRedirectURI is wrapped by every refusal of a redirect URI offered at
// registration (RFC 7591 error invalid_redirect_uri).
var ErrRedirectURI = errors.New("invalid redirect URI")

// MaxRedirectURIs bounds the redirect URIs of one client, and
// MaxRedirectURILen the length of each: a registration is unauthenticated
// and stored.
const (
	MaxRedirectURIs   = 10
	MaxRedirectURILen = 2048
)

// CheckRedirectURIs reports why uris may not be registered for a public
// client: there must be one to MaxRedirectURIs of them, each an absolute
// https URL, or http on a loopback host (RFC 8252 section 7.3, where
// [MatchRedirect] lets the port vary), without user info or fragment
// (OAuth 2.1 section 2.3.1). Private-use schemes (com.example.app:/cb)
// are refused: Switchboard's clients are MCP clients that can listen on
// loopback, and a custom scheme can be claimed by any local app.
func CheckRedirectURIs(uris []string) error {
	if len(uris) == 0 || len(uris) > MaxRedirectURIs {
		return fmt.Errorf("%w: give 1 to %d redirect_uris", ErrRedirectURI, MaxRedirectURIs)
	}
	for _, raw := range uris {
		if len(raw) > MaxRedirectURILen {
			return fmt.Errorf("%w: a redirect URI is longer than %d characters", ErrRedirectURI, MaxRedirectURILen)
		}
		u, err := url.Parse(raw)
		if err != nil || !u.IsAbs() || u.Host == "" || u.User != nil || u.Fragment != "" || u.RawFragment != "" {
			return fmt.Errorf("%w: %q must be an absolute URL with a host, without user info or fragment", ErrRedirectURI, raw)
		}
		if u.Scheme != "https" && (u.Scheme != "http" || !IsLoopbackHost(u.Hostname())) {
			return fmt.Errorf("%w: %q must be https, or http on a loopback host (127.0.0.1, [::1], localhost)", ErrRedirectURI, raw)
		}
	}
	return nil
}
