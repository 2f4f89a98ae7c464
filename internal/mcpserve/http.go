package mcpserve

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler returns the Streamable HTTP handler, to be mounted at /mcp.
//
// The HTTP layer authenticates the request first and passes the caller
// with [WithCaller] on the request's context; a request without one is
// served as the anonymous Caller{}. A session belongs to the caller that
// created it: requests from another caller naming its Mcp-Session-Id are
// refused with 403.
//
// Requests on protocol 2026-07-28 or later are served without a session.
// Older clients get sessions, which end after [Options].SessionTimeout
// without a request; a caller holding [Options].MaxSessions gets 429 for
// another. Session IDs carry a MAC under [Options].SessionKey, so that a
// Server sharing the key continues a session another created.
//
// Before anything else, the handler protects against DNS rebinding: it
// refuses (403, with a JSON-RPC error body) a Host that is not a loopback
// name or in [Options].AllowedHosts when the request arrived on a loopback
// address, and a browser Origin that is neither the server's own (for an
// accepted Host) nor in [Options].AllowedOrigins. After [Server.Close] it
// answers 503.
func (s *Server) Handler() http.Handler { return s.http }

// statelessVersion is the first protocol version without sessions: each
// request carries what initialize used to negotiate, so any replica can
// serve it.
const statelessVersion = "2026-07-28"

func (s *Server) newHTTPHandler() http.Handler {
	stateful := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger: s.logger,
		// No SessionTimeout: the gateway expires idle sessions itself
		// (Server.expire), since direct calls do not reach the SDK.
		// checkHost does what this protection does, and also honours
		// AllowedHosts, which the SDK's cannot.
		DisableLocalhostProtection: true,
	})
	// Clients on 2026-07-28 and later send the version on every request
	// and open no session; the SDK serves them only in stateless mode, on
	// a session that lives for the one request.
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:                     s.logger,
		Stateless:                  true,
		DisableLocalhostProtection: true,
	})
	s.relay.sdk = stateful
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.admit() {
			writeError(w, http.StatusServiceUnavailable, "Switchboard's MCP gateway is shutting down")
			return
		}
		defer s.requests.Done()
		if msg := s.checkHost(r); msg != "" {
			writeError(w, http.StatusForbidden, msg)
			return
		}
		if msg := s.checkOrigin(r); msg != "" {
			writeError(w, http.StatusForbidden, msg)
			return
		}
		caller := callerOf(r.Context())
		id := r.Header.Get("Mcp-Session-Id")
		q := request{version: r.Header.Get("Mcp-Protocol-Version"), session: id != "", shared: s.shared}
		var (
			raw    string
			elicit bool
			rec    *sessionRec
		)
		if q.version < statelessVersion && q.session {
			raw, _, _ = strings.Cut(id, ".")
			rec, q.held = s.owners.get(raw)
			raw, elicit, q.signed, q.valid = s.openID(id, caller.ID, rec)
			q.owner = q.held && rec.caller == caller.ID
		}
		rt := routeOf(q)
		switch rt {
		case routeStateless:
			if !s.directStateless(w, r) {
				stateless.ServeHTTP(w, r)
			}
			return
		case routeNewSession:
			s.newSession(stateful, w, r, caller)
			return
		case routeForeign:
			writeError(w, http.StatusForbidden, "this MCP session belongs to another caller; initialize a new session")
			return
		}
		r.Header.Set("Mcp-Session-Id", raw) // the SDK knows its own ID only
		iw := &idWriter{ResponseWriter: w, s: s, caller: caller.ID, id: id}
		switch rt {
		case routeRecreate:
			s.recreate(iw, r, raw, elicit)
		case routeUnknown:
			stateful.ServeHTTP(iw, r) // "session not found", in the SDK's words
		case routeHeld:
			s.serveHeld(stateful, iw, r, rec, raw)
		}
	})
}

// serveHeld serves a request on a session this replica holds: a tools/call
// on the direct path, a client's answer to a question another replica
// asked, or anything else through the SDK.
func (s *Server) serveHeld(sdk http.Handler, w *idWriter, r *http.Request, rec *sessionRec, raw string) {
	rec.begin()
	defer rec.end()
	if s.directCall(w, r, rec) {
		return
	}
	if s.relay.serveAnswers(w, r, raw) {
		return
	}
	sdk.ServeHTTP(w, r)
	if r.Method == http.MethodDelete {
		s.owners.remove(raw)
	}
}

// newSession serves a request that opens a session, unless its caller
// already holds [Options].MaxSessions open ones.
func (s *Server) newSession(sdk http.Handler, w http.ResponseWriter, r *http.Request, caller Caller) {
	if r.Method == http.MethodPost && !s.owners.reserve(caller.ID, s.opts.MaxSessions, s.liveSessions) {
		msg := fmt.Sprintf("too many open MCP sessions for this caller (the limit is %d); end unused ones with DELETE", s.opts.MaxSessions)
		if s.opts.SessionTimeout > 0 {
			msg += fmt.Sprintf(", or wait for idle ones to expire (after %v)", s.opts.SessionTimeout)
		}
		writeError(w, http.StatusTooManyRequests, msg)
		return
	}
	iw := &idWriter{ResponseWriter: w, s: s, caller: caller.ID, create: r.Method == http.MethodPost, elicit: declaresElicitation(r)}
	sdk.ServeHTTP(iw, r)
	if iw.create && !iw.added {
		s.owners.release(caller.ID)
	}
}

// writeError answers with a JSON-RPC error body (id null), which MCP
// clients can show, and the HTTP status.
func writeError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": -32600, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client is gone if this fails; nothing to do
}

// checkHost returns why the request's Host is refused, or "".
func (s *Server) checkHost(r *http.Request) string {
	if s.hostTrusted(r.Host) {
		return ""
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	onLoopback := local != nil && isLoopback(local.String())
	if !onLoopback && len(s.opts.AllowedHosts) == 0 {
		return ""
	}
	return "Host " + quote(r.Host) + " is not allowed (DNS rebinding protection); add it to the server's allowed hosts if it is yours"
}

// hostTrusted reports whether host is a loopback name or address or one of
// AllowedHosts (with or without its port).
func (s *Server) hostTrusted(host string) bool {
	if isLoopback(host) {
		return true
	}
	name := hostname(host)
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, host) || strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// checkOrigin returns why the request's Origin is refused, or "". Requests
// without Origin come from programs, not browsers, and pass.
func (s *Server) checkOrigin(r *http.Request) string {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	for _, o := range s.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return ""
		}
	}
	// The server's own origin is safe only under a Host checked by name:
	// with a rebound DNS name, Origin and Host agree on the attacker's name.
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) && s.hostTrusted(r.Host) {
		return ""
	}
	return "Origin " + quote(origin) + " is not allowed; add it to the server's allowed origins if it is yours"
}

// isLoopback reports whether hostport (a host, host:port, [v6] or
// [v6]:port) names the loopback interface.
func isLoopback(hostport string) bool {
	h := hostname(hostport)
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// hostname strips the port and IPv6 brackets from hostport.
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
