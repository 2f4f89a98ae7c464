package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
)

// getHost sends GET path with the Host header host ("" keeps the test
// server's) and returns the response and its body.
func (e *env) getHost(t *testing.T, path, host, key string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestOAuthMetadataLoopbackDerived(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.opts.OAuth, e.srv.opts.OAuthIssuer = e.db, e.db
	base := e.ts.URL // http://127.0.0.1:PORT
	resp, b := e.getHost(t, "/.well-known/oauth-protected-resource/mcp", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	got := decode[oauth.ProtectedResource](t, b)
	want := oauth.ProtectedResource{Resource: base + "/mcp", AuthorizationServers: []string{base}, BearerMethodsSupported: []string{"header"}, ResourceName: "Switchboard MCP gateway"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("/mcp metadata (-want +got):\n%s", d)
	}
	_, b = e.getHost(t, "/.well-known/oauth-protected-resource", "", "")
	if got := decode[oauth.ProtectedResource](t, b); got.Resource != base {
		t.Fatalf("REST API resource %q, want %q", got.Resource, base)
	}
	_, b = e.getHost(t, "/.well-known/oauth-authorization-server", "", "")
	md := decode[oauth.ServerMetadata](t, b)
	if md.Issuer != base || md.TokenEndpoint != base+"/oauth/token" || md.AuthorizationEndpoint != base+"/oauth/authorize" {
		t.Fatalf("server metadata %+v: want issuer %s", md, base)
	}
}

func TestOAuthMetadataPublicURL(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.PublicURL = "https://sb.example.com/"
		o.AllowedHosts = []string{"sb.example.com"}
	})
	e.srv.opts.OAuth, e.srv.opts.OAuthIssuer = e.db, e.db
	// The configured URL wins over the Host, loopback or not.
	for _, host := range []string{"", "sb.example.com"} {
		_, b := e.getHost(t, "/.well-known/oauth-protected-resource/mcp", host, "")
		if got := decode[oauth.ProtectedResource](t, b); got.Resource != "https://sb.example.com/mcp" ||
			!cmp.Equal(got.AuthorizationServers, []string{"https://sb.example.com"}) {
			t.Fatalf("host %q: metadata %+v", host, got)
		}
	}
}

// A Host from the network must not name the issuer: without a
// configured public URL, a non-loopback Host gets no metadata and a bare
// challenge.
func TestOAuthMetadataForeignHostNotDerived(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AllowedHosts = []string{"sb.example.com"} })
	e.srv.opts.OAuth, e.srv.opts.OAuthIssuer = e.db, e.db
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"} {
		if resp, b := e.getHost(t, p, "sb.example.com", ""); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: status %d, want 404: %s", p, resp.StatusCode, b)
		}
	}
	resp, _ := e.getHost(t, "/mcp", "sb.example.com", "")
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || got != "Bearer" {
		t.Fatalf("status %d, WWW-Authenticate %q: want 401 and a bare Bearer challenge", resp.StatusCode, got)
	}
}

func TestUnauthorizedChallenge(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.PublicURL = "https://sb.example.com" })
	e.srv.opts.OAuth, e.srv.opts.OAuthIssuer = e.db, e.db
	tests := []struct {
		path, key, want string
	}{
		{"/mcp", "", `Bearer resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource/mcp"`},
		{"/mcp", "sb_at.unknown", `Bearer error="invalid_token", resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource/mcp"`},
		{"/api/v1/conversations", "", `Bearer resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource"`},
		{"/api/v1/me", "sb_nope", `Bearer error="invalid_token", resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource"`},
		{"/v1/models", "", `Bearer resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource"`},
	}
	for _, tc := range tests {
		resp, b := e.getHost(t, tc.path, "", tc.key)
		if resp.StatusCode != 401 {
			t.Fatalf("%s: status %d: %s", tc.path, resp.StatusCode, b)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != tc.want {
			t.Errorf("%s key %q: WWW-Authenticate %q, want %q", tc.path, tc.key, got, tc.want)
		}
	}
	// A good key gets no challenge.
	if resp, _ := e.getHost(t, "/api/v1/me", "", e.key); resp.StatusCode != 200 || resp.Header.Get("WWW-Authenticate") != "" {
		t.Fatalf("good key: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// A server not given the OAuth stores (a server of a program that issues
// no tokens) names no authorization server anywhere: no
// metadata, a bare challenge, and 404 on the OAuth routes, so no client
// starts a flow that cannot finish.
func TestOAuthOffWithoutStore(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.PublicURL = "https://sb.example.com" })
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"} {
		if resp, b := e.getHost(t, path, "", ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d: %s, want 404", path, resp.StatusCode, b)
		}
	}
	if resp, _ := e.getHost(t, "/mcp", "", ""); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("/mcp: status %d, WWW-Authenticate %q, want 401 and a bare Bearer", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	for _, path := range []string{"/oauth/register", "/oauth/revoke"} {
		resp, err := e.ts.Client().Post(e.ts.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: status %d, want 404", path, resp.StatusCode)
		}
	}
}
