package mcphost_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// loopbackClient lets OAuth discovery reach the httptest servers on
// 127.0.0.1, which the SDK's default discovery client refuses.
func loopbackClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

func TestOAuth(t *testing.T) {
	// Access tokens live 5s; golang.org/x/oauth2 refreshes tokens that have
	// less than 10s left, so every use after the first exercises refresh.
	sc, as := mcptest.OAuthServer(t, "secure", 5*time.Second)
	dataDir := t.TempDir()
	tokenFile := filepath.Join(dataDir, "oauth", "secure.json")

	t.Run("first login", func(t *testing.T) {
		opts := testOptions()
		opts.DataDir = dataDir
		opts.OAuthRedirect = as.Redirect
		opts.OAuthHTTPClient = loopbackClient()
		p := startPool(t, []mcphost.ServerConfig{sc}, opts)
		if st := statusOf(t, p, "secure"); st.State != mcphost.StateReady {
			t.Fatalf("not ready: %s", st.LastError)
		}
		res, err := call(t, findTool(t, p, "echo"), map[string]any{"text": "authorized"})
		if err != nil || res.Text() != "authorized" {
			t.Fatalf("echo: %v, %v", res, err)
		}
		if as.Registrations.Load() != 1 || as.Authorizations.Load() != 1 || as.Exchanges.Load() != 1 {
			t.Errorf("registrations %d, authorizations %d, exchanges %d; want 1 each",
				as.Registrations.Load(), as.Authorizations.Load(), as.Exchanges.Load())
		}
		fi, err := os.Stat(tokenFile)
		if err != nil {
			t.Fatalf("token not stored: %v", err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
		}
		var stored map[string]any
		b, _ := os.ReadFile(tokenFile)
		if err := json.Unmarshal(b, &stored); err != nil || stored["client_id"] == "" || stored["token"] == nil {
			t.Errorf("token file %s is not the expected JSON: %v", b, err)
		}
	})

	t.Run("stored token is reused and refreshed", func(t *testing.T) {
		before := as.Authorizations.Load()
		opts := testOptions()
		opts.DataDir = dataDir
		opts.OAuthHTTPClient = loopbackClient() // and no OAuthRedirect: no user around
		p := startPool(t, []mcphost.ServerConfig{sc}, opts)
		if st := statusOf(t, p, "secure"); st.State != mcphost.StateReady {
			t.Fatalf("not ready with the stored token: %s", st.LastError)
		}
		if res, err := call(t, findTool(t, p, "echo"), map[string]any{"text": "again"}); err != nil || res.Text() != "again" {
			t.Fatalf("echo: %v, %v", res, err)
		}
		if as.Authorizations.Load() != before {
			t.Errorf("the stored grant did not spare a login")
		}
		if as.Refreshes.Load() == 0 {
			t.Errorf("no refresh_token grant seen")
		}
	})

	t.Run("no token and no user", func(t *testing.T) {
		opts := testOptions()
		opts.DataDir = t.TempDir()
		opts.OAuthHTTPClient = loopbackClient()
		p := startPool(t, []mcphost.ServerConfig{sc}, opts)
		st := statusOf(t, p, "secure")
		if st.State != mcphost.StateFailed || !strings.Contains(st.LastError, "requires OAuth") {
			t.Errorf("status %s %q: want failed with a login hint", st.State, st.LastError)
		}
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	sc, as := mcptest.OAuthServer(t, "secure", time.Hour)
	dataDir := t.TempDir()
	opts := testOptions()
	opts.DataDir = dataDir
	opts.OAuthHTTPClient = loopbackClient()
	if err := mcphost.Login(t.Context(), sc, opts); err == nil {
		t.Fatal("Login without OAuthRedirect: no error")
	}
	opts.OAuthRedirect = as.Redirect
	if err := mcphost.Login(t.Context(), sc, opts); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if as.Authorizations.Load() != 1 {
		t.Errorf("%d authorizations, want 1", as.Authorizations.Load())
	}
	opts.OAuthRedirect = nil
	p := startPool(t, []mcphost.ServerConfig{sc}, opts)
	if st := statusOf(t, p, "secure"); st.State != mcphost.StateReady {
		t.Fatalf("pool after Login not ready: %s", st.LastError)
	}
	if as.Authorizations.Load() != 1 {
		t.Errorf("the pool asked the user again after Login")
	}
}
