package security

import (
	"net/http"
	"strings"
	"testing"
)

// TestHTTPProbesNeedKeyOnceUsersExist: /metrics and /readyz answer only
// with a key once users exist, unless server.publicProbes is set;
// /healthz stays public and says nothing but "ok".
func TestHTTPProbesNeedKeyOnceUsersExist(t *testing.T) {
	dir := project(t, "")
	key := addUser(t, dir, "bob", "--allow", "calculator")
	s := serve(t, dir)
	for _, p := range []string{"/metrics", "/readyz"} {
		if code, body := s.call(t, http.MethodGet, p, "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a key = %d %.80s; want 401", p, code, body)
		}
		if code, _ := s.call(t, http.MethodGet, p, "sb_madeup", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a made-up key = %d; want 401", p, code)
		}
		if code, _ := s.call(t, http.MethodGet, p, key, nil); code != 200 {
			t.Errorf("GET %s with a key = %d; want 200", p, code)
		}
	}
	code, body := s.call(t, http.MethodGet, "/healthz", "", nil)
	if code != 200 || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("GET /healthz = %d %s; want 200 {\"status\":\"ok\"} and nothing more", code, body)
	}
}

// TestHTTPProbesPublicBySetting: server.publicProbes opens /metrics and
// /readyz to scrapers without a key, and nothing else.
func TestHTTPProbesPublicBySetting(t *testing.T) {
	dir := project(t, "server:\n  publicProbes: true\n")
	addUser(t, dir, "bob")
	s := serve(t, dir)
	for _, p := range []string{"/metrics", "/readyz"} {
		if code, _ := s.call(t, http.MethodGet, p, "", nil); code != 200 {
			t.Errorf("GET %s without a key, publicProbes = %d; want 200", p, code)
		}
	}
	if code, _ := s.call(t, http.MethodGet, "/api/v1/tools", "", nil); code != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/tools without a key, publicProbes = %d; want 401", code)
	}
}
