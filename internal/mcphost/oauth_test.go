package mcphost_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		if stored["server_url"] != sc.URL {
			t.Errorf("token file names server url %v, want %s: the grant is bound to its server", stored["server_url"], sc.URL)
		}
	})

	// The grant is used only as it was made: for its server's URL, from a
	// file of Switchboard's own. Each case starts from a copy of it.
	grantCases := []struct {
		name  string
		plant func(t *testing.T, path string, grant []byte)
		url   string // the server's URL in the config; "" is sc.URL
		ok    bool
		why   string
	}{
		{name: "as made", ok: true, plant: func(t *testing.T, path string, g []byte) { writeGrant(t, path, g, 0o600) }},
		{name: "from before grants named their server", ok: true, plant: func(t *testing.T, path string, g []byte) {
			var m map[string]any
			_ = json.Unmarshal(g, &m)
			delete(m, "server_url")
			g, _ = json.Marshal(m)
			writeGrant(t, path, g, 0o600)
		}},
		{name: "for another url", url: sc.URL + "?tenant=other", why: "was made for", plant: func(t *testing.T, path string, g []byte) { writeGrant(t, path, g, 0o600) }},
		{name: "readable by others", why: "lets other users at it", plant: func(t *testing.T, path string, g []byte) { writeGrant(t, path, g, 0o644) }},
		{name: "a symlink", why: "symbolic link", plant: func(t *testing.T, path string, g []byte) {
			real := filepath.Join(t.TempDir(), "planted.json")
			writeGrant(t, real, g, 0o600)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another user's", why: "belongs to uid", plant: func(t *testing.T, path string, g []byte) {
			if os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			writeGrant(t, path, g, 0o600)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, gc := range grantCases {
		t.Run("stored grant "+gc.name, func(t *testing.T) {
			grant, err := os.ReadFile(tokenFile)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			gc.plant(t, filepath.Join(dir, "oauth", "secure.json"), grant)
			var logs strings.Builder
			opts := testOptions()
			opts.DataDir = dir
			opts.OAuthHTTPClient = loopbackClient()
			opts.Logger = slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
			cfg := sc
			if gc.url != "" {
				cfg.URL = gc.url
			}
			p := startPool(t, []mcphost.ServerConfig{cfg}, opts)
			st := statusOf(t, p, "secure")
			if gc.ok {
				if st.State != mcphost.StateReady {
					t.Errorf("not ready with the grant: %s %s", st.State, st.LastError)
				}
				return
			}
			if st.State == mcphost.StateReady {
				t.Errorf("ready with a grant it must not use")
			}
			if l := logs.String(); !strings.Contains(l, gc.why) || !strings.Contains(l, "mcp login") {
				t.Errorf("log does not say why the grant was refused (%q) and what to do:\n%s", gc.why, l)
			}
		})
	}

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

// writeGrant writes a grant file with mode, making its directory.
func writeGrant(t *testing.T, path string, grant []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, grant, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// syncWriter serialises writes to w, for a logger used by several
// goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
