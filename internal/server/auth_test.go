package server

import (
	"context"
	"iter"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
)

func TestNewAPIKey(t *testing.T) {
	k1, h1 := NewAPIKey()
	k2, _ := NewAPIKey()
	if !strings.HasPrefix(k1, KeyPrefix) || len(k1) != len(KeyPrefix)+43 || k1 == k2 {
		t.Fatalf("keys %q, %q: want distinct sb_ keys of 32 random bytes", k1, k2)
	}
	if h1 != HashKey(k1) || len(h1) != 64 {
		t.Fatalf("hash %q is not the hex SHA-256 of the key", h1)
	}
}

func TestAuth(t *testing.T) {
	tests := []struct {
		name       string
		anonymous  bool
		header     string
		host       string
		wantStatus int
	}{
		{"missing key", false, "", "", 401},
		{"not bearer", false, "Basic abc", "", 401},
		{"unknown key", false, "Bearer sb_nope", "", 401},
		{"no prefix", false, "Bearer xyz", "", 401},
		{"good key", false, "Bearer KEY", "", 200},
		{"anonymous on loopback", true, "", "", 200},
		{"anonymous, bad key still refused", true, "Bearer sb_nope", "", 401},
		{"anonymous, foreign host", true, "", "evil.example:80", 403},
		{"anonymous, localhost", true, "", "localhost:8080", 200},
		{"anonymous, a bearer that is not a Switchboard key", true, "Bearer sk-made-up", "", 200},
		{"anonymous, another scheme", true, "Basic abc", "", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.AllowAnonymous = tc.anonymous })
			if tc.anonymous {
				e.removeAlice(t)
			}
			h := http.Header{}
			if tc.header != "" {
				h.Set("Authorization", strings.Replace(tc.header, "KEY", e.key, 1))
			}
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, e.ts.URL+"/api/v1/conversations", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header = h
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
		})
	}
}

func TestCrossOriginRefused(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct {
		name   string
		header http.Header
		want   int
	}{
		{"same origin", http.Header{"Origin": {e.ts.URL}}, 201},
		{"no origin (not a browser)", http.Header{}, 201},
		{"other origin", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"cross-site fetch", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.send(t, http.MethodPost, "/api/v1/conversations", e.key, map[string]string{}, tc.header)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatal("CORS header sent; there is no CORS by default")
			}
		})
	}
}

func TestToolPermissions(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AllowAnonymous = true })
	var permitted []string
	e.runner.run = func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		for _, ent := range e.reg.List() {
			if c := (gate.Caller{ID: req.UserID, Name: req.User, Permissions: req.Permissions}); c.Permits(ent.Name) {
				permitted = append(permitted, ent.Name)
			}
		}
		return events(doneEvent(req.RunID))
	}
	names := func(key string) []string {
		code, b := e.do(t, http.MethodGet, "/api/v1/tools", key, nil)
		if code != 200 {
			t.Fatalf("tools: %d %s", code, b)
		}
		var out []string
		for _, tj := range decode[list[toolJSON]](t, b).Items {
			out = append(out, tj.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"files__echo"}, names(e.key)); diff != "" {
		t.Errorf("alice's tools mismatch (-want +got):\n%s", diff)
	}
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__secret/call", e.key, map[string]any{}); code != 404 {
		t.Errorf("alice calling secret: %d %s; want 404", code, b)
	}
	resp := e.openStream(t, context.Background(), e.createConversation(t), "hi")
	readEvents(t, resp.Body, nil)
	resp.Body.Close()
	if diff := cmp.Diff([]string{"files__echo"}, permitted); diff != "" {
		t.Errorf("tools permitted to alice's run mismatch (-want +got):\n%s", diff)
	}
	// Without users, the anonymous local user may call every tool.
	e.removeAlice(t)
	if diff := cmp.Diff([]string{"files__echo", "files__secret"}, names("")); diff != "" {
		t.Errorf("local user's tools mismatch (-want +got):\n%s", diff)
	}
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__secret/call", "", map[string]any{}); code != 200 {
		t.Errorf("local user calling secret: %d %s; want 200", code, b)
	}
	// The audit names the user of each call.
	code, b := e.do(t, http.MethodGet, "/api/v1/audit", "", nil)
	var users []string
	for _, r := range decode[list[auditJSON]](t, b).Items {
		users = append(users, r.User+":"+r.Tool)
	}
	if code != 200 || !slices.Contains(users, "local:files__secret") {
		t.Errorf("audit = %d %v; want local's call of files__secret", code, users)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	e := newEnvGate(t, &gate.Options{Limiter: gate.NewBuckets(0.1, 1, clock)}, func(o *Options) {
		o.Limits = Limits{Requests: 0.5, RequestBurst: 2}
		o.Now = clock
	})
	for i, want := range []int{200, 200, 429} {
		resp := e.send(t, http.MethodGet, "/api/v1/agents", e.key, nil, nil)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
		}
		if want == 429 && resp.Header.Get("Retry-After") != "2" {
			t.Fatalf("Retry-After = %q, want 2", resp.Header.Get("Retry-After"))
		}
	}
	now = now.Add(10 * time.Second) // the request bucket refills
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__echo/call", e.key, map[string]any{}); code != 200 {
		t.Fatalf("first tool call: %d %s", code, b)
	}
	resp := e.send(t, http.MethodPost, "/api/v1/tools/files__echo/call", e.key, map[string]any{}, nil)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "10" {
		t.Fatalf("second tool call: %d Retry-After %q; want 429 and 10", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestForeignHostNeverAnonymous: with users, a loopback server accepts any
// Host from key holders (a reverse proxy's); without users, a foreign Host
// is never served anonymously, also while the directory's cache still
// remembers a user that was just removed.
func TestForeignHostNeverAnonymous(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AllowAnonymous = true })
	do := func(key, host string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.ts.URL+"/api/v1/tools", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := do(e.key, "switchboard.example:443"); code != 200 {
		t.Errorf("key holder through a proxy Host = %d; want 200", code)
	}
	if code := do("", "switchboard.example:443"); code != 401 {
		t.Errorf("anonymous with users = %d; want 401", code)
	}
	// Another process removes alice: this server's cache still has her.
	if err := e.db.DeleteUser(t.Context(), e.userID); err != nil {
		t.Fatal(err)
	}
	if code := do("", "evil.example"); code == 200 {
		t.Error("anonymous request with a foreign Host served right after the last user left (stale cache)")
	}
	e.srv.users.Invalidate()
	if code := do("", "evil.example"); code == 200 {
		t.Error("anonymous request with a foreign Host served without users")
	}
	if code := do("", "localhost"); code != 200 {
		t.Errorf("anonymous on localhost without users = %d; want 200", code)
	}
}
