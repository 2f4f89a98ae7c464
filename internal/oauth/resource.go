package oauth

import (
	"errors"
	"net/url"
	"strings"
)

// ErrResource is wrapped by every refusal of a resource parameter.
var ErrResource = errors.New("invalid resource")

// CanonicalResource returns the canonical form of an RFC 8707 resource
// parameter: an absolute http(s) URL without fragment or user info, with
// lower-case scheme and host and no trailing slash (the MCP authorization
// spec's canonical server URI). Every access token records the canonical
// resource it was issued for, its audience.
func CanonicalResource(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return "", errors.Join(ErrResource, errors.New("resource must be an absolute URL such as https://switchboard.example.com/mcp"))
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "https" && scheme != "http") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", errors.Join(ErrResource, errors.New("resource must be an http(s) URL with a host, without user info or fragment"))
	}
	return scheme + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/") + query(u), nil
}

func query(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// Audience reports whether a token issued for the canonical resource
// tokenResource may be used at the resource served (also canonical). The
// match is exact: a token for /mcp is not a token for the REST API, and
// a token for another server is nobody's token here (RFC 8707 section 2;
// the MCP spec forbids passing tokens through).
func Audience(tokenResource, served string) bool {
	return tokenResource != "" && tokenResource == served
}
