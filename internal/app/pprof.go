package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/server"
)

// Profile serves Go's profiling endpoints (/debug/pprof/) on ln until ctx
// ends, to profile a live service. ln must be a loopback address: profiles
// show memory contents and tool arguments, and a CPU profile costs the
// service while it runs. When users exist, only an admin (role admin) may
// use it, with the same bearer key as the API. As the API does, it refuses
// a foreign Host or Origin (DNS rebinding; see profileForeign).
func (a *App) Profile(ctx context.Context, ln net.Listener) error {
	if !isLoopback(ln.Addr()) {
		return fmt.Errorf("refusing to serve profiles on %s: use a loopback address such as 127.0.0.1:6060", ln.Addr())
	}
	if _, err := a.Store(ctx); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if msg := a.profileForeign(r); msg != "" {
				http.Error(w, msg, http.StatusForbidden)
				return
			}
			if msg := a.profileRefusal(r); msg != "" {
				http.Error(w, msg, http.StatusUnauthorized)
				return
			}
			mux.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	a.logger.Info("serving profiles", logKeyAddr, ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// A CPU profile in progress ends with the context; give it a moment.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// profileForeign returns why r, from a browser page of another site, may
// not read profiles, or "". The listener is loopback only, so the Host must
// be a loopback name: a foreign one is a DNS-rebinding page that resolved
// its own name to 127.0.0.1 and reads the profiles (and the command line)
// through the person's browser, which needs no key while no user exists.
// An Origin must be the listener's own (or one the API allows), as the
// API asks of requests that change state; profiles cost CPU to make, so
// here every request is checked. These are the API's own checks
// (server.HostAllowed and server.OriginAllowed, strictly).
func (a *App) profileForeign(r *http.Request) string {
	if !server.HostAllowed(r.Host, nil, true) {
		return fmt.Sprintf("host %q is not accepted: profiles answer only loopback names (localhost, 127.0.0.1, [::1]); open them as http://localhost:PORT/debug/pprof/", r.Host)
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "cross-site requests may not read profiles"
	}
	if origin := r.Header.Get("Origin"); !server.OriginAllowed(origin, r.Host, a.cfg.Server.AllowedOrigins) {
		return fmt.Sprintf("origin %q may not read profiles; only the listener's own pages may", origin)
	}
	return ""
}

// profileRefusal returns why r may not read profiles, or "": with users,
// the request must carry an admin's key.
func (a *App) profileRefusal(r *http.Request) string {
	st, err := a.Store(r.Context())
	if err != nil {
		return "the user database is unavailable"
	}
	users, err := st.ListUsers(r.Context())
	if err != nil {
		return "the user database is unavailable"
	}
	if len(users) == 0 {
		return ""
	}
	const need = "profiles need an admin's key (`switchboard users set NAME --admin`): send Authorization: Bearer sb_..."
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return need
	}
	u, err := st.GetUserByKeyHash(r.Context(), server.HashKey(strings.TrimSpace(key)))
	if err != nil || u.Disabled || !u.IsAdmin() {
		return need
	}
	return ""
}
