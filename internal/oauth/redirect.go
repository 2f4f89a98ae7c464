package oauth

import (
	"net"
	"net/url"
)

// MatchRedirect reports whether requested is one of the registered
// redirect URIs. The match is exact, character for character, with one
// exception: for a registered http redirect on a loopback IP literal
// (127.0.0.0/8 or [::1]) or "localhost", any port is accepted, since a
// native app listens on whatever port the system gives it (RFC 8252
// section 7.3). Scheme, host, path and query must still match exactly,
// and a loopback registration never matches another host. A requested
// URI with a fragment, user info or an unparsable form never matches.
//
// Why "localhost" too: RFC 8252 recommends the IP literal, but the MCP
// TypeScript SDK and Claude Desktop register http://localhost:PORT/...;
// the name is resolved by the browser on the user's own machine, so the
// redirect still never leaves it.
func MatchRedirect(registered []string, requested string) bool {
	req, err := url.Parse(requested)
	if err != nil || req.Fragment != "" || req.User != nil || req.Opaque != "" {
		return false
	}
	for _, r := range registered {
		if r == requested {
			return true
		}
		if loopbackMatch(r, req) {
			return true
		}
	}
	return false
}

// loopbackMatch reports whether req equals the registered loopback URI
// reg except for the port.
func loopbackMatch(reg string, req *url.URL) bool {
	u, err := url.Parse(reg)
	if err != nil || u.Scheme != "http" || req.Scheme != "http" || !IsLoopbackHost(u.Hostname()) {
		return false
	}
	if u.Hostname() != req.Hostname() {
		return false
	}
	return u.EscapedPath() == req.EscapedPath() && u.RawQuery == req.RawQuery &&
		u.User == nil && u.Fragment == "" && !req.ForceQuery
}

// IsLoopbackHost reports whether host (without port or brackets) names
// this machine's loopback interface: "localhost" or a loopback IP literal.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
