package security

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// headerSpy is a web server that keeps the Authorization headers it is
// sent and answers 404: a server a token must never reach.
type headerSpy struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string // guarded by mu
}

func newHeaderSpy(t *testing.T) *headerSpy {
	s := &headerSpy{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *headerSpy) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// TestOwnersGrantStaysWithItsServer: the operator logs in to a remote MCP
// server once; the grant under the data directory holds a token that
// every permitted user's calls to that server use. It must not go
// anywhere else. Pointed at another server by a config change (here a
// server that records what it is sent), Switchboard does not send it the
// token; a grant file planted as a symlink, left readable by others, or
// (as root) owned by another user is not used either. Each refusal says
// why and what to do; the real grant, where it belongs, still works.
func TestOwnersGrantStaysWithItsServer(t *testing.T) {
	sc, as := mcptest.OAuthServer(t, "secure", time.Hour)
	dir := t.TempDir()
	data := filepath.Join(dir, ".switchboard")
	opts := &mcphost.Options{DataDir: data, OAuthRedirect: as.Redirect, OAuthHTTPClient: &http.Client{}}
	if err := mcphost.Login(t.Context(), sc, opts); err != nil {
		t.Fatalf("logging in: %v", err)
	}
	grantFile := filepath.Join(data, "oauth", "secure.json")
	grant, err := os.ReadFile(grantFile)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Token struct {
			AccessToken string `json:"access_token"`
		} `json:"token"`
	}
	if json.Unmarshal(grant, &g) != nil || g.Token.AccessToken == "" {
		t.Fatalf("the grant holds no access token: %s", grant)
	}
	state := func(url string) (string, cliResult) {
		t.Helper()
		// The person edits the config by hand and names it: a discovered
		// file changed after tools could write here needs `config trust`.
		cfg := filepath.Join(dir, "switchboard.yaml")
		writeFile(t, cfg, fmt.Sprintf("mcpServers:\n  secure: {type: http, url: %q}\n", url))
		r := switchboard(t, dir, "--config", cfg, "--log-level", "warn", "servers", "--json")
		var ss []struct{ Name, State string }
		if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil {
			t.Fatalf("servers --json: %v\n%s\n%s", err, r.stdout, r.stderr)
		}
		for _, s := range ss {
			if s.Name == "secure" {
				return s.State, r
			}
		}
		t.Fatalf("servers --json lists no server secure:\n%s", r.stdout)
		return "", r
	}
	if st, r := state(sc.URL); st != "ready" {
		t.Fatalf("with its grant, secure is %s:\n%s", st, r.stderr)
	}

	// The name now points at another server: it gets no token.
	spy := newHeaderSpy(t)
	st, r := state(spy.URL + "/mcp")
	if st == "ready" {
		t.Errorf("secure is ready at the other server")
	}
	for _, h := range spy.seen() {
		if strings.Contains(h, g.Token.AccessToken) {
			t.Errorf("the other server was sent the grant's token: %q", h)
		}
	}
	if len(spy.seen()) == 0 {
		t.Errorf("the other server was not contacted at all; the test proves nothing")
	}
	if !strings.Contains(r.stderr, "was made for") || !strings.Contains(r.stderr, "mcp login") {
		t.Errorf("the log does not say why the grant was not used, and what to do:\n%s", r.stderr)
	}

	// Grant files that are not Switchboard's own are not used.
	planted := filepath.Join(t.TempDir(), "planted.json")
	writeFile(t, planted, string(grant))
	plants := []struct {
		name, why string
		plant     func(t *testing.T)
	}{
		{"a symlink to a planted file", "symbolic link", func(t *testing.T) {
			if err := os.Symlink(planted, grantFile); err != nil {
				t.Fatal(err)
			}
		}},
		{"readable by every user", "other users", func(t *testing.T) {
			writeFile(t, grantFile, string(grant))
			if err := os.Chmod(grantFile, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's file", "belongs to uid", func(t *testing.T) {
			if os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			writeFile(t, grantFile, string(grant))
			if err := os.Chown(grantFile, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			if err := os.Remove(grantFile); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			p.plant(t)
			st, r := state(sc.URL)
			if st == "ready" {
				t.Errorf("secure is ready with a grant file %s", p.name)
			}
			if !strings.Contains(r.stderr, p.why) || !strings.Contains(r.stderr, "mcp login") {
				t.Errorf("the log does not say why the grant was refused (%q) and what to do:\n%s", p.why, r.stderr)
			}
		})
	}

	// Back where it belongs, as it was made, the grant works again. (As
	// an ordinary user the last plant was skipped and nothing is there.)
	if err := os.Remove(grantFile); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(grantFile, grant, 0o600); err != nil {
		t.Fatal(err)
	}
	if st, r := state(sc.URL); st != "ready" {
		t.Errorf("with its grant restored, secure is %s:\n%s", st, r.stderr)
	}
}
