package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to tamper with a row as an attacker with the database would

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// sdkOAuthRemote starts the MCP TypeScript SDK's own example server with
// --oauth: a Streamable HTTP MCP server guarded by the SDK's example
// authorization server (dynamic registration, PKCE, introspection), on
// two free loopback ports. It returns the MCP URL and the server's stdout,
// where it logs, for every request, the session and the token it
// received ("Authenticated user: { token: ... }").
func sdkOAuthRemote(t *testing.T) (mcpURL string, out *lockedBuffer) {
	t.Helper()
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk")
	mcpPort, authPort := freePort(t), freePort(t)
	cmd := exec.CommandContext(context.WithoutCancel(t.Context()), node,
		filepath.Join(nm, "@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"), "--oauth")
	cmd.Env = []string{"MCP_PORT=" + strconv.Itoa(mcpPort), "MCP_AUTH_PORT=" + strconv.Itoa(authPort), "PATH=/usr/bin:/bin"}
	out = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if !mcptest.Poll(20*time.Second, func() bool {
		s := out.String()
		return strings.Contains(s, "MCP Streamable HTTP Server listening") && strings.Contains(s, "OAuth Authorization Server listening")
	}) {
		t.Fatalf("the SDK's example server did not start: %s", out.String())
	}
	return "http://localhost:" + strconv.Itoa(mcpPort) + "/mcp", out
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// browse plays a browser from the authorization URL: it follows the
// authorization server's redirects and stops where it is sent back to
// Switchboard, returning that URL (the callback page with the answer).
func browse(t *testing.T, authURL, switchboard string) *url.URL {
	t.Helper()
	loc := browseTo(t, authURL, switchboard)
	if loc.Path != "/connections/oauth/callback" {
		t.Fatalf("the browser was sent back to %s", loc)
	}
	// The page the browser lands on is the Connections page.
	if code := status(t, loc.String(), ""); code != http.StatusOK {
		t.Errorf("the callback page answered %d", code)
	}
	return loc
}

// callback is the body the callback page posts.
func callback(loc *url.URL) map[string]string {
	q := loc.Query()
	return map[string]string{"state": q.Get("state"), "code": q.Get("code"), "iss": q.Get("iss"), "error": q.Get("error")}
}

var tokenSeen = regexp.MustCompile(`(?s)Received MCP request for session: (\S+)\s*\nAuthenticated user: \{\s*token: '([^']+)'`)

// TestPerUserOAuthUpstream is per-user OAuth with a remote MCP server's
// own authorization server, on real parts: the MCP TypeScript SDK's example
// server and authorization server, two replicas on one PostgreSQL
// database, two users who each connect through the real flow (started on
// one replica, finished on the other) and call a tool; the remote server
// sees each user's own token on each of their sessions and never one
// user's token on another's. Then the attacks: another user finishing a
// state, replay, no or a forged state, a state moved to another server,
// a failed refresh, and tokens in answers, logs and the audit trail.
func TestPerUserOAuthUpstream(t *testing.T) {
	remoteURL, remoteOut := sdkOAuthRemote(t)

	// The operator's own token lists the catalogue, as for any per-user
	// server; it is got through the same flow, by the test.
	hc := http.DefaultClient
	authURL, ua, err := mcphost.BeginUserAuthorization(t.Context(), remoteURL, nil, "http://127.0.0.1:9/operator", "op", hc)
	if err != nil {
		t.Fatal(err)
	}
	opLoc := browseTo(t, authURL, "http://127.0.0.1:9/operator")
	opTok, err := ua.Exchange(t.Context(), opLoc.Query().Get("code"), opLoc.Query().Get("iss"), hc)
	if err != nil {
		t.Fatal(err)
	}

	dsn := storetest.PostgresSchema(t)
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	setup := func(c *config.Config) {
		c.SecretKey = config.Secret(key)
		remote := config.MCPServer{
			Type: "http", URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer " + opTok.AccessToken},
			Credentials: config.CredentialsPerUser, OAuth: &config.OAuth{}, Timeout: time.Minute, ShutdownTimeout: time.Second,
		}
		c.MCPServers = map[string]config.MCPServer{"remote": remote, "other": remote}
		c.Approvals.Rules = []config.Rule{{Server: "remote", Policy: "allow"}}
	}
	var logs lockedBuffer
	opts := func() *Options {
		return &Options{OAuthHTTPClient: hc, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	}
	a, aURL := serveWith(t, dsn, opts(), setup)
	b, bURL := serveWith(t, dsn, opts(), setup)
	for _, r := range []*App{a, b} {
		if err := r.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		poll(t, "the per-user server's catalogue", func() bool { return hasTool(r, "remote__greet") })
	}
	alice, aliceKey, err := a.AddUser(t.Context(), "alice", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	bob, bobKey, err := a.AddUser(t.Context(), "bob", false, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	greet := func(base, key, name string) string {
		t.Helper()
		code, body := send(t, http.MethodPost, base+"/api/v1/tools/remote__greet/call", key, map[string]any{"arguments": map[string]string{"name": name}})
		if code != http.StatusOK {
			t.Fatalf("calling greet as %s: %d %s", name, code, body)
		}
		bodies = append(bodies, body)
		return body
	}
	begin := func(base, key string) *url.URL {
		t.Helper()
		code, body := send(t, http.MethodPost, base+"/api/v1/connections/remote/authorize", key, nil)
		if code != http.StatusOK {
			t.Fatalf("beginning the authorization: %d %s", code, body)
		}
		var ans struct{ AuthorizationURL string }
		if err := json.Unmarshal([]byte(body), &ans); err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(ans.AuthorizationURL)
		if q := u.Query(); q.Get("code_challenge_method") != "S256" || q.Get("resource") != remoteURL || q.Get("redirect_uri") != base+"/connections/oauth/callback" {
			t.Errorf("the authorization request %s lacks PKCE S256, the resource or Switchboard's redirect", u)
		}
		return browse(t, ans.AuthorizationURL, base)
	}
	finish := func(base, key string, cb map[string]string) (int, string) {
		t.Helper()
		code, body := send(t, http.MethodPost, base+"/api/v1/connections/oauth/callback", key, cb)
		bodies = append(bodies, body)
		return code, body
	}

	// Before connecting: the clear error with the link.
	if body := greet(aURL, aliceKey, "early"); !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "press Connect for it on the web UI's Connections page (/connections)") {
		t.Errorf("a call before connecting answered %s", body)
	}

	// Alice begins on A; Bob, with her callback in his session, is
	// refused on B, and that leaves her authorization for her.
	aliceCB := callback(begin(aURL, aliceKey))
	if code, body := finish(bURL, bobKey, aliceCB); code != http.StatusNotFound || !strings.Contains(body, "no authorization of yours") {
		t.Errorf("bob finishing alice's authorization: %d %s", code, body)
	}
	if code, body := finish(bURL, aliceKey, aliceCB); code != http.StatusOK || !strings.Contains(body, `"connected":true`) {
		t.Fatalf("alice finishing on the other replica: %d %s", code, body)
	}
	if code, body := finish(aURL, aliceKey, aliceCB); code != http.StatusNotFound {
		t.Errorf("replaying alice's callback: %d %s", code, body)
	}
	if code, body := finish(bURL, bobKey, callback(begin(bURL, bobKey))); code != http.StatusOK {
		t.Fatalf("bob connecting: %d %s", code, body)
	}
	for name, cb := range map[string]map[string]string{
		"no state":     {"code": "x"},
		"forged state": {"state": "forged", "code": "x"},
	} {
		if code, body := finish(aURL, aliceKey, cb); code != http.StatusBadRequest && code != http.StatusNotFound {
			t.Errorf("a callback with %s: %d %s", name, code, body)
		}
	}

	// Each user's calls, on either replica, reach the remote server with
	// their own token, and each session there carries one token only.
	mark := len(remoteOut.String())
	if body := greet(bURL, aliceKey, "alice-1"); !strings.Contains(body, "Hello, alice-1!") {
		t.Fatalf("alice's call: %s", body)
	}
	aliceSaw := remoteOut.String()[mark:]
	mark = len(remoteOut.String())
	if body := greet(aURL, bobKey, "bob-1"); !strings.Contains(body, "Hello, bob-1!") {
		t.Fatalf("bob's call: %s", body)
	}
	bobSaw := remoteOut.String()[mark:]
	aliceTok, err := userCreds{a: a}.lookup(t.Context(), "remote", alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	bobTok, err := userCreds{a: b}.lookup(t.Context(), "remote", bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	if aliceTok == bobTok || aliceTok == opTok.AccessToken {
		t.Fatalf("alice's token %q, bob's %q, operator's %q: want three", aliceTok, bobTok, opTok.AccessToken)
	}
	if !strings.Contains(aliceSaw, aliceTok) || strings.Contains(aliceSaw, bobTok) {
		t.Errorf("while alice called, the remote server saw:\n%s\nwant her token %s and not bob's", aliceSaw, aliceTok)
	}
	if !strings.Contains(bobSaw, bobTok) || strings.Contains(bobSaw, aliceTok) {
		t.Errorf("while bob called, the remote server saw:\n%s\nwant his token %s and not alice's", bobSaw, bobTok)
	}
	sessions := map[string]string{}
	for _, m := range tokenSeen.FindAllStringSubmatch(remoteOut.String(), -1) {
		if prev, ok := sessions[m[1]]; ok && prev != m[2] {
			t.Errorf("remote session %s carried two tokens, %s and %s", m[1], prev, m[2])
		}
		sessions[m[1]] = m[2]
	}
	users := map[string]bool{}
	for _, tok := range sessions {
		users[tok] = true
	}
	if !users[aliceTok] || !users[bobTok] {
		t.Errorf("the remote server's sessions carried %v, want alice's and bob's tokens among them", users)
	}

	// A pending authorization moved to another server (its row rewritten,
	// as someone with the database could) does not finish.
	moved := callback(begin(aURL, aliceKey))
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `UPDATE upstream_auth_states SET server = 'other' WHERE user_id = $1`, alice.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := finish(aURL, aliceKey, moved); code != http.StatusBadRequest || !strings.Contains(body, "does not open") {
		t.Errorf("a state for remote finished for other: %d %s", code, body)
	}
	if _, err := (userCreds{a: a}).lookup(t.Context(), "other", alice.ID); err == nil || !strings.Contains(err.Error(), "have not connected") {
		t.Errorf("alice's credential for other after the moved state: %v, want none", err)
	}

	// A refresh that fails (this authorization server refreshes nothing)
	// marks Alice's connection for a reconnect, with the link, on every
	// replica; connecting again mends it.
	c, err := a.mustStore(t).GetUserCredential(t.Context(), alice.ID, "remote")
	if err != nil {
		t.Fatal(err)
	}
	oc, ok := userCreds{a: a}.openOAuth(c)
	if !ok {
		t.Fatal("alice's credential is not an OAuth grant")
	}
	oc.Token.Expiry, oc.Token.RefreshToken = time.Now().Add(-time.Minute), "stale-refresh"
	if _, err := (userCreds{a: a}).putOAuth(t.Context(), alice.ID, "remote", oc); err != nil {
		t.Fatal(err)
	}
	if body := greet(aURL, aliceKey, "alice-expired"); !strings.Contains(body, "remote needs you to connect again") || !strings.Contains(body, "(/connections)") {
		t.Errorf("alice's call after a failed refresh: %s", body)
	}
	if code, body := send(t, http.MethodGet, bURL+"/api/v1/connections", aliceKey, nil); code != http.StatusOK || !strings.Contains(body, `"reconnect":"your sign-in expired`) {
		t.Errorf("alice's connections after a failed refresh: %d %s", code, body)
	}
	if code, body := finish(bURL, aliceKey, callback(begin(bURL, aliceKey))); code != http.StatusOK {
		t.Fatalf("alice reconnecting: %d %s", code, body)
	}
	if body := greet(aURL, aliceKey, "alice-2"); !strings.Contains(body, "Hello, alice-2!") {
		t.Errorf("alice's call after reconnecting: %s", body)
	}

	// Disconnecting removes Bob's on both replicas.
	if code, body := send(t, http.MethodDelete, aURL+"/api/v1/connections/remote", bobKey, nil); code != http.StatusNoContent {
		t.Fatalf("bob disconnecting: %d %s", code, body)
	}
	if body := greet(bURL, bobKey, "bob-after"); !strings.Contains(body, "press Connect") {
		t.Errorf("bob's call after disconnecting: %s", body)
	}

	// No token in what users or the operator read.
	code, list := send(t, http.MethodGet, aURL+"/api/v1/connections", aliceKey, nil)
	if code != http.StatusOK || !strings.Contains(list, `"oauth":true`) {
		t.Errorf("alice's connections: %d %s", code, list)
	}
	bodies = append(bodies, list)
	recs, err := a.mustStore(t).ListAudit(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	audit, _ := json.Marshal(recs)
	_, auditAPI := send(t, http.MethodGet, aURL+"/api/v1/audit", aliceKey, nil)
	if !strings.Contains(string(audit), "alice-1") {
		t.Errorf("the audit trail lacks alice's call: %s", audit)
	}
	newAlice, err := userCreds{a: a}.lookup(t.Context(), "remote", alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"answers": strings.Join(bodies, "\n"), "audit trail": string(audit), "audit API": auditAPI, "logs": logs.String()} {
		for _, tok := range []string{aliceTok, bobTok, newAlice} {
			if strings.Contains(text, tok) {
				t.Errorf("the %s contain a user's token %q", where, tok)
			}
		}
	}
}

// browseTo is browse for a redirect URI outside Switchboard (the
// operator's), returning where the browser was sent.
func browseTo(t *testing.T, authURL, redirect string) *url.URL {
	t.Helper()
	c := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, authURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("the authorization server answered %s without sending the browser back: %v", resp.Status, err)
	}
	return loc
}

func (a *App) mustStore(t *testing.T) store.Store {
	t.Helper()
	st, err := a.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
