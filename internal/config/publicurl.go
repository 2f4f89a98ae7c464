package config

import (
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
)

// checkPublicURL says what is wrong with server.publicURL, or "". It is
// the OAuth issuer, so it must be one (https, http only on loopback), and
// it has no path: the well-known metadata sits at the host's root, where
// a path prefix added by a proxy would not be.
func checkPublicURL(raw string) string {
	if _, err := oauth.NewServerMetadata(raw, nil); err != nil {
		return err.Error()
	}
	u, _ := url.Parse(raw) // parsed above
	if strings.TrimSuffix(u.Path, "/") != "" {
		return "must have no path (scheme://host[:port], e.g. https://switchboard.example.com)"
	}
	return ""
}
