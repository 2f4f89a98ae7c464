package server

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

type loggerKey struct{}

// log returns the request's logger (with its request id).
func (s *Server) log(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*reqLog); ok {
		return l.logger()
	}
	return s.logger
}

// wrap adds, outside in: request id, logging and metrics by route
// pattern; Host and Origin checks; authentication and the per-user
// request limit (for routes that need a user); the error mapping.
func (s *Server) wrap(rt route, h handlerFunc) http.Handler {
	label := rt.method + " " + rt.pattern
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.opts.Now()
		id := newRequestID()
		w.Header().Set("X-Request-Id", id)
		if corsOpen(rt.pattern) {
			setCORS(w.Header())
		}
		rl := &reqLog{base: s.logger, id: id}
		rec := &statusRecorder{ResponseWriter: w}
		// The checks read the request as it came; its context gains the
		// logger (and the user) once, after them: each WithContext copies
		// the request.
		ctx := r.Context()
		err := s.guard(rt, r)
		if err == nil && s.needsUser(rt) {
			var u User
			u, err = s.authenticate(r, rt.pattern)
			if err == nil && u.Session && unsafeMethod(r.Method) {
				err = s.checkCSRF(r)
			}
			if err == nil && rt.access == admin && !u.Admin {
				err = errForbiddenAdmin
			}
			if err == nil && rt.access != probe {
				err = s.reqLimits.Allow(ctx, u.key(), "requests")
			}
			if err == nil {
				rl.user = u.Name
				// Tool calls made for this request (the tools API, runs,
				// /mcp) act for u: what they keep is u's alone.
				ctx = tools.WithUser(withUser(ctx, u), u.ID)
			}
		}
		ctx = context.WithValue(ctx, loggerKey{}, rl)
		r = r.WithContext(ctx)
		if err == nil && r.Body != nil && r.Body != http.NoBody {
			// Bodies are read before any response streams, so the
			// deadline never cuts a stream: net/http clears it once the
			// body is read to its end.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyReadTimeout))
		}
		if err == nil {
			err = h(rec, r)
		}
		if err != nil {
			if rec.status != 0 {
				// The response began (a stream); the status is sent.
				rl.logger().WarnContext(ctx, "request failed after the response began", logKeyErr, err)
			} else {
				if classify(err).Status == http.StatusUnauthorized {
					s.challenge(rec, r, rt.pattern)
				}
				writeError(rec, r, rl.logger(), err)
			}
		}
		d := s.opts.Now().Sub(start)
		s.metrics.ObserveHTTP(rt.pattern, r.Method, rec.code(), d)
		if s.logger.Enabled(ctx, slog.LevelDebug) {
			rl.logger().DebugContext(ctx, "request", logKeyMethod, r.Method, logKeyRoute, label, logKeyStatus, rec.code(), logKeyDuration, d)
		}
	})
}

// errForbiddenAdmin refuses a route that needs the admin role.
var errForbiddenAdmin = &Error{
	Status: http.StatusForbidden, Code: "forbidden",
	Msg: "this needs an admin: agents, their servers, server restarts and stderr are managed by admins " +
		"(the operator can make a user one with `switchboard users set NAME --admin`)",
}

// needsUser reports whether rt's requests must carry a user.
func (s *Server) needsUser(rt route) bool {
	switch rt.access {
	case authenticated, admin:
		return true
	case probe:
		return !s.opts.PublicProbes
	}
	return false
}

// newRequestID returns 16 hex digits that tell one request's log lines
// from another's. They need to be unique, not secret: math/rand/v2's
// generator (per thread, seeded by the runtime) gives them without the
// system call crypto/rand made on every request.
func newRequestID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// guard refuses requests whose Host or Origin the server does not accept:
// a foreign Host while anonymous access is possible (DNS rebinding) or
// not in AllowedHosts, and state-changing browser requests from another
// origin.
func (s *Server) guard(rt route, r *http.Request) error {
	host := r.Host
	// Whether anonymous access is possible is read from the directory's
	// cache here; authenticate checks the Host again, strictly, before it
	// grants anonymous access, so a stale cache cannot open it to a
	// foreign Host.
	strict := s.opts.AllowAnonymous && s.users.MayBeEmpty(r.Context())
	if !s.hostAllowed(host, strict) {
		return errorf(http.StatusForbidden, "forbidden_host", "host %q is not accepted; add it to the server's allowed hosts", host)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if corsOpen(rt.pattern) {
		return nil // no ambient credential: see corsOpen
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return errorf(http.StatusForbidden, "forbidden_origin", "cross-site requests are not accepted")
	}
	if origin := r.Header.Get("Origin"); !OriginAllowed(origin, host, s.opts.AllowedOrigins) {
		return errorf(http.StatusForbidden, "forbidden_origin", "origin %q may not call this server; only its own pages may", origin)
	}
	return nil
}

// OriginAllowed reports whether a browser request with the Origin header
// value origin may call a server it reached as host (its Host header): a
// request without an Origin, one from an origin in allowed, or one from
// the server's own pages. The API checks it on requests that change
// state; the profiling listener on every request.
func OriginAllowed(origin, host string, allowed []string) bool {
	if origin == "" || slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, host)
}

// hostAllowed reports whether the Host header value host is accepted by
// this server (see [HostAllowed]).
func (s *Server) hostAllowed(host string, strict bool) bool {
	return HostAllowed(host, s.opts.AllowedHosts, strict)
}

// HostAllowed reports whether the Host header value host is accepted:
// one in allowed, or any when allowed is empty and strict is false; a
// loopback name always. Strict is for a listener that answers without a
// key (anonymous loopback access, the profiling listener without users):
// there a foreign name is a DNS-rebinding page reaching 127.0.0.1 from
// the person's browser.
func HostAllowed(host string, allowed []string, strict bool) bool {
	if slices.Contains(allowed, host) {
		return true
	}
	if len(allowed) == 0 && !strict {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	if slices.Contains(allowed, name) {
		return true
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(name, "[]"))
	return ip != nil && ip.IsLoopback()
}

// statusRecorder remembers the status written, for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// Unwrap lets http.ResponseController reach Flush and SetWriteDeadline.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush implements http.Flusher for code that asserts it directly.
func (r *statusRecorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}
