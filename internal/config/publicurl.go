package config

import (
	"net"
	"net/url"
	"strings"
)

// checkPublicURL says what is wrong with server.publicURL, or "". It is
// the OAuth issuer, so it follows RFC 8414's rules for one (https, http
// only on a loopback host, for local use; no query or fragment), and it
// has no path: the well-known metadata sits at the host's root, where a
// path prefix added by a proxy would not be. (config imports only the
// standard library, so this is not internal/oauth's check.)
func checkPublicURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "must be an absolute URL without user info, query or fragment, such as https://switchboard.example.com"
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !loopbackHost(u.Hostname())) {
		return "must be https (http only on a loopback host, for local use)"
	}
	if strings.TrimSuffix(u.Path, "/") != "" {
		return "must have no path (scheme://host[:port], e.g. https://switchboard.example.com)"
	}
	return ""
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
