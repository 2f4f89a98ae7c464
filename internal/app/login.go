package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// Login makes the OAuth grant of one remote MCP server and stores its
// token in the data directory (0600), where every later start reuses and
// refreshes it. show is given the authorization page's URL to open in a
// browser; Login listens on the server's redirect URL for the browser's
// return, and gives up when ctx ends.
func (a *App) Login(ctx context.Context, name string, show func(authURL string)) error {
	s, ok := a.config().MCPServers[name]
	if !ok {
		return fmt.Errorf("no MCP server named %q", name)
	}
	sc := mcpServer(a.cfg, name, s)
	redirect := mcphost.DefaultRedirectURL
	if sc.OAuth != nil && sc.OAuth.RedirectURL != "" {
		redirect = sc.OAuth.RedirectURL
	}
	return mcphost.Login(ctx, sc, &mcphost.Options{
		Logger:          a.logger,
		DataDir:         a.cfg.Data,
		OAuthRedirect:   callbackServer(redirect, show),
		OAuthHTTPClient: a.oauthClient,
	})
}

// callbackServer returns an OAuthRedirect hook that serves redirectURL on
// its loopback address for the one request the browser makes when the
// authorization server sends it back, and returns that request's URL.
func callbackServer(redirectURL string, show func(authURL string)) func(ctx context.Context, authURL string) (string, error) {
	return func(ctx context.Context, authURL string) (string, error) {
		u, err := url.Parse(redirectURL)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return "", fmt.Errorf("redirect URL %q: the login listens for the browser's return on an http loopback URL", redirectURL)
		}
		ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", u.Host)
		if err != nil {
			return "", fmt.Errorf("listening for the browser's return on %s: %w", u.Host, err)
		}
		got := make(chan string, 1) // one callback is enough; later ones are ignored
		mux := http.NewServeMux()
		mux.HandleFunc(u.Path, func(w http.ResponseWriter, r *http.Request) {
			cb := *u
			cb.RawQuery = r.URL.RawQuery
			select {
			case got <- cb.String():
			default:
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintln(w, "Switchboard received the authorization. You can close this window.")
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = srv.Serve(ln) // http.ErrServerClosed once Close below runs
		}()
		defer func() {
			srv.Close()
			<-done
		}()
		show(authURL)
		select {
		case cb := <-got:
			return cb, nil
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for the browser to return from %s: %w", authURL, ctx.Err())
		}
	}
}
