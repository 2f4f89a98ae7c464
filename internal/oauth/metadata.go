package oauth

import (
	"fmt"
	"net/url"
	"strings"
)

// WellKnownResource is the well-known path segment of protected resource
// metadata (RFC 9728 section 3).
const WellKnownResource = "/.well-known/oauth-protected-resource"

// ProtectedResource is the protected resource metadata document of RFC
// 9728 section 2, as served at [MetadataURL] of the resource. Only the
// fields Switchboard fills are here.
type ProtectedResource struct {
	// Resource is the resource identifier: the absolute URL clients use,
	// which is also the audience access tokens for it are bound to (RFC
	// 8707).
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer URLs of the authorization
	// servers that issue tokens for Resource.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// BearerMethodsSupported is ["header"]: a token in a query string
	// ends up in logs and histories.
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// MetadataURL returns the URL of the protected resource metadata of
// resource, an absolute http(s) URL: the well-known segment goes between
// the host and the path (RFC 9728 section 3.1), so
// https://sb.example.com/mcp has its metadata at
// https://sb.example.com/.well-known/oauth-protected-resource/mcp. A query
// or fragment in resource is an error (the RFC forbids a fragment, and a
// query would make the resource ambiguous).
func MetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", fmt.Errorf("parsing resource %q: %w", resource, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("resource %q must be an absolute http(s) URL without user info", resource)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("resource %q must not have a query or fragment", resource)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + WellKnownResource + path, nil
}

// Challenge returns the WWW-Authenticate value of a 401 from a protected
// resource whose metadata is at metadataURL (RFC 9728 section 5.1). It
// names no error: the request carried no usable token, and RFC 6750
// section 3.1 leaves the error out then, while an invalid token gets
// [ChallengeInvalidToken].
func Challenge(metadataURL string) string {
	return `Bearer resource_metadata="` + quoteSafe(metadataURL) + `"`
}

// ChallengeInvalidToken is [Challenge] for a request whose bearer token
// was refused (unknown, expired, revoked or for another resource).
func ChallengeInvalidToken(metadataURL string) string {
	return `Bearer error="invalid_token", resource_metadata="` + quoteSafe(metadataURL) + `"`
}

// quoteSafe drops the characters that would end or escape a quoted
// string; a URL from [MetadataURL] has none, so this only guards against
// a misconfigured base URL breaking the header.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
