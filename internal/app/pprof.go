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
// use it, with the same bearer key as the API.
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
