package security

import (
	"net/http"
	"testing"
)

// TestHTTPAnonymousBearer: while anonymous access holds (loopback, no
// user), a bearer that is not a Switchboard key (what the OpenAI clients
// always send) counts as no key; an unknown "sb_" key is still refused.
func TestHTTPAnonymousBearer(t *testing.T) {
	s := serve(t, project(t, ""))
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"", 200},
		{"sk-proj-madeup", 200},
		{"ollama", 200},
		{"sb_madeup", http.StatusUnauthorized},
	} {
		if code, body := s.call(t, http.MethodGet, "/v1/models", tc.key, nil); code != tc.want {
			t.Errorf("GET /v1/models with bearer %q = %d %s; want %d", tc.key, code, body, tc.want)
		}
	}
}
