package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

func TestMain(m *testing.M) {
	// A confined terminal or stdio server re-executes this binary as the
	// sandbox's shim.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// TestLoginStoresATokenLaterStartsReuse plays the browser: it follows the
// authorization page to the redirect URL Login listens on.
func TestLoginStoresATokenLaterStartsReuse(t *testing.T) {
	sc, as := mcptest.OAuthServer(t, "remote", time.Hour)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	ln.Close() // Login listens there itself

	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	cfg.MCPServers = map[string]config.MCPServer{"remote": {
		URL: sc.URL, Type: "http", Timeout: time.Minute, ShutdownTimeout: time.Second,
		OAuth: &config.OAuth{RedirectURL: redirect},
	}}
	a, err := New(cfg, &Options{OAuthHTTPClient: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	browser := func(authURL string) {
		go func() { // the browser is another program: it must not block Login
			resp, err := http.Get(authURL) // follows the redirect to Login's callback
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	if err := a.Login(ctx, "remote", browser); err != nil {
		t.Fatalf("Login: %v", err)
	}
	st, err := os.Stat(filepath.Join(cfg.Data, "oauth", "remote.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600", err, st)
	}
	logins := as.Authorizations.Load()

	// A later start reuses the stored token: no new login.
	b, err := New(cfg, &Options{OAuthHTTPClient: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Servers() {
		if s.Name == "remote" && s.State != "ready" {
			t.Errorf("remote after login: %s (%s)", s.State, s.LastError)
		}
	}
	if as.Authorizations.Load() != logins {
		t.Errorf("the second start logged in again (%d logins, want %d)", as.Authorizations.Load(), logins)
	}
}
