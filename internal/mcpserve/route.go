package mcpserve

// route is where one /mcp request goes, after the host and origin checks.
type route int

const (
	// routeStateless: a 2026-07-28 or later request, served without a
	// session (the direct path, or the SDK's stateless handler).
	routeStateless route = iota
	// routeNewSession: no session named; the request may open one.
	routeNewSession
	// routeForeign: the session belongs to another caller (403).
	routeForeign
	// routeRecreate: a session another replica created under the shared
	// key; this replica takes it over.
	routeRecreate
	// routeUnknown: a session nobody here holds and no replica can vouch
	// for; the SDK answers "session not found".
	routeUnknown
	// routeHeld: a session this replica holds: the direct path, a relayed
	// answer, or the SDK's stateful handler.
	routeHeld
)

// request is what routing looks at, read from the request and the
// server's state before any of it is served.
type request struct {
	// version is the request's Mcp-Protocol-Version header.
	version string
	// session is whether the request names an Mcp-Session-Id.
	session bool
	// signed reports whether the ID carries a MAC; valid, whether that MAC
	// is right for this caller.
	signed, valid bool
	// held reports whether this replica holds the session; owner, whether
	// the caller is the one that holds it.
	held, owner bool
	// shared reports whether replicas share the session key.
	shared bool
}

// routeOf decides where a request goes. It is a pure function of what the
// request says and what the server holds, so every combination is tested
// in one table (route_test.go).
func routeOf(q request) route {
	switch {
	case q.version >= statelessVersion:
		return routeStateless
	case !q.session:
		return routeNewSession
	case q.signed && !q.valid, q.held && !q.owner:
		return routeForeign
	case q.held:
		return routeHeld
	case q.valid && q.shared:
		return routeRecreate
	default:
		return routeUnknown
	}
}
