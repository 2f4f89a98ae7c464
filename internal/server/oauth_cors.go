package server

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// corsOpen reports whether the route pattern answers browsers of any
// origin (CORS): the OAuth discovery documents and the token,
// registration and revocation endpoints, which browser-based MCP clients
// (the MCP Inspector) call from their own origin. None of them reads an
// ambient credential (cookie or session): a request proves itself by what
// its body carries (a code with its PKCE verifier, a refresh token), so
// another origin's page gains nothing it could not send itself. The
// authorization endpoint and the consent API are not among them.
func corsOpen(pattern string) bool {
	switch pattern {
	case "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/oauth/token", "/oauth/register", "/oauth/revoke":
		return true
	}
	return false
}

// setCORS adds the CORS headers of a corsOpen route. No credentials are
// allowed (Access-Control-Allow-Credentials is never sent), so a browser
// sends no cookie with these requests.
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
	h.Set("Access-Control-Max-Age", "600")
}

// preflight answers a CORS preflight (OPTIONS) of a corsOpen route; the
// headers are set by wrap.
func (s *Server) preflight() handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) error {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// ipLimiter is a token bucket per client IP for unauthenticated routes
// that write (client registration). An IPv6 client is counted by its /64,
// which one host usually holds whole. The map is emptied when it holds
// ipLimiterMax entries, so a flood of addresses costs bounded memory (and
// at worst a fresh budget for all).
type ipLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu    sync.Mutex
	byKey map[string]*rate.Limiter // guarded by mu
}

const ipLimiterMax = 10000

// newIPLimiter allows perMinute requests per IP (default 10, with a
// burst of as many); negative means no bound.
func newIPLimiter(perMinute int, now func() time.Time) *ipLimiter {
	if perMinute == 0 {
		perMinute = 10
	}
	l := &ipLimiter{limit: rate.Limit(float64(perMinute) / 60), burst: perMinute, now: now, byKey: map[string]*rate.Limiter{}}
	if perMinute < 0 {
		l.limit, l.burst = rate.Inf, 0
	}
	return l
}

// allow returns nil or a 429 [*Error] for a request from the
// connection's remote address. Behind a reverse proxy every client shares
// the proxy's address: the bound then applies to all together.
func (l *ipLimiter) allow(remoteAddr string) error {
	if l.limit == rate.Inf {
		return nil
	}
	key := remoteAddr
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		key = host
	}
	if ip := net.ParseIP(key); ip != nil && ip.To4() == nil {
		key = ip.Mask(net.CIDRMask(64, 128)).String()
	}
	l.mu.Lock()
	lim, ok := l.byKey[key]
	if !ok {
		if len(l.byKey) >= ipLimiterMax {
			clear(l.byKey)
		}
		lim = rate.NewLimiter(l.limit, l.burst)
		l.byKey[key] = lim
	}
	l.mu.Unlock()
	now := l.now()
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		secs := max(1, int(d.Seconds()+0.999))
		return &Error{
			Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: secs,
			Msg: fmt.Sprintf("too many client registrations from this address; retry in %d s", secs),
		}
	}
	return nil
}
