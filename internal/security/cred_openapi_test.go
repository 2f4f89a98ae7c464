package security

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// credSink is an HTTP server on its own origin that records every request
// it gets, with its credentials.
type credSink struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newCredSink(t *testing.T) *credSink {
	s := &credSink{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, fmt.Sprintf("%s %s key=%q auth=%q", r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization")))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[]`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *credSink) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// credSpec is an OpenAPI document with one operation, listItems, and the
// given servers URL ("" for none).
func credSpec(servers string) string {
	srv := ""
	if servers != "" {
		srv = fmt.Sprintf(`"servers":[{"url":%q}],`, servers)
	}
	return `{"openapi":"3.0.3","info":{"title":"items","version":"1"},` + srv +
		`"paths":{"/items":{"get":{"operationId":"listItems","responses":{"200":{"description":"ok"}}}}}}`
}

// credProject is a project with one OpenAPI server, api, configured as
// server (a YAML flow mapping).
func credProject(t *testing.T, server string) string {
	t.Helper()
	return project(t, "openapiServers:\n  api: "+server+"\n")
}

// TestCredRedirectToAnotherOriginNotFollowed: the configured API answers
// a call with a 302 to another host. Go's client would follow it and drop
// only Authorization, sending the configured X-Api-Key along; Switchboard
// must not follow it at all, and say where it pointed.
func TestCredRedirectToAnotherOriginNotFollowed(t *testing.T) {
	elsewhere := newCredSink(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, credSpec(""))
		case "/items":
			http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusFound)
		case "/moved":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `["same-origin"]`)
		}
	}))
	t.Cleanup(api.Close)
	dir := credProject(t, fmt.Sprintf(`{url: %q, bearer: tok-b34r3r, headers: {X-Api-Key: k3y-s3cr3t}}`, api.URL))

	r := pinRun(t, dir, "call", "api__listItems")
	if got := elsewhere.requests(); len(got) != 0 {
		t.Errorf("the redirect was followed to another origin, which got: %q", got)
	}
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, elsewhere.URL) || !strings.Contains(out, "another origin") {
		t.Errorf("call: exit %d, output:\n%s\nwant a tool error naming %s as another origin", r.code, out, elsewhere.URL)
	}
	for _, secret := range []string{"tok-b34r3r", "k3y-s3cr3t"} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows the secret %s:\n%s", secret, out)
		}
	}
}

// TestCredSameOriginRedirectFollowed: a redirect within the configured
// origin is still followed.
func TestCredSameOriginRedirectFollowed(t *testing.T) {
	var api *httptest.Server
	api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, credSpec(""))
		case "/items":
			http.Redirect(w, r, api.URL+"/moved", http.StatusFound)
		case "/moved":
			if r.Header.Get("X-Api-Key") != "k3y" {
				http.Error(w, "no key", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `["same-origin"]`)
		}
	}))
	t.Cleanup(api.Close)
	dir := credProject(t, fmt.Sprintf(`{url: %q, headers: {X-Api-Key: k3y}}`, api.URL))
	if r := pinRun(t, dir, "call", "api__listItems"); r.code != 0 || !strings.Contains(r.stdout, "same-origin") {
		t.Errorf("same-origin redirect: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCredSpecOnlyServerNamingAnotherOrigin: with only spec configured,
// a document whose servers entry names another origin would get to choose
// where the bearer token goes. The server must be refused, with an error
// that says to set url, and the other origin must get nothing.
func TestCredSpecOnlyServerNamingAnotherOrigin(t *testing.T) {
	elsewhere := newCredSink(t)
	specHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, credSpec(elsewhere.URL+"/v1"))
	}))
	t.Cleanup(specHost.Close)
	dir := credProject(t, fmt.Sprintf(`{spec: %q, bearer: tok-b34r3r}`, specHost.URL+"/openapi.json"))

	r := pinRun(t, dir, "call", "api__listItems")
	if got := elsewhere.requests(); len(got) != 0 {
		t.Errorf("the other origin named by the document got: %q", got)
	}
	r = pinRun(t, dir, "servers")
	if !strings.Contains(r.stdout+r.stderr, "set url") {
		t.Errorf("servers does not say to set url:\n%s\n%s", r.stdout, r.stderr)
	}

	// The same document is fine once url says where calls go.
	dir = credProject(t, fmt.Sprintf(`{spec: %q, url: %q, bearer: tok-b34r3r}`, specHost.URL+"/openapi.json", elsewhere.URL))
	if r := pinRun(t, dir, "call", "api__listItems"); r.code != 0 {
		t.Errorf("with url set: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := elsewhere.requests(); len(got) != 1 || !strings.Contains(got[0], `auth="Bearer tok-b34r3r"`) {
		t.Errorf("with url set the API got %q, want one call with the bearer", got)
	}
}

// TestCredSpecElsewhereFetchedWithoutCredentials: with url and a spec on
// another origin (a CDN, a repository), the document is fetched without
// the API's credentials, and calls carry them to url only.
func TestCredSpecElsewhereFetchedWithoutCredentials(t *testing.T) {
	api := newCredSink(t)
	var mu sync.Mutex
	var specAuth []string
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		specAuth = append(specAuth, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, credSpec(""))
	}))
	t.Cleanup(cdn.Close)
	dir := credProject(t, fmt.Sprintf(`{url: %q, spec: %q, bearer: tok-b34r3r, headers: {X-Api-Key: k3y-s3cr3t}}`, api.URL, cdn.URL+"/openapi.json"))
	if r := pinRun(t, dir, "call", "api__listItems"); r.code != 0 {
		t.Fatalf("call: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range specAuth {
		if a != "" {
			t.Errorf("the document on another origin was fetched with credentials %q", a)
		}
	}
	if got := api.requests(); len(got) != 1 || !strings.Contains(got[0], `key="k3y-s3cr3t"`) {
		t.Errorf("the API got %q, want one call with its key", got)
	}
}
