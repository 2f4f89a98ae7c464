package openapi

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const tinySpec = `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
 "paths": {"/ping": {"get": {"operationId": "ping"}}}}`

const tinyYAML = "openapi: 3.1\ninfo: {title: t, version: '1'}\npaths:\n  /ping:\n    get: {operationId: ping}\n"

// docServer serves documents at some paths, 404 elsewhere, and records the
// paths asked for.
func docServer(t *testing.T, docs map[string]string) (string, *recorder) {
	rec := &recorder{reply: func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, body)
	}}
	return startServer(t, rec).URL, rec
}

func paths(reqs []seen) []string {
	var p []string
	for _, r := range reqs {
		p = append(p, r.URI)
	}
	return p
}

func TestDiscoveryOrder(t *testing.T) {
	tests := []struct {
		name    string
		docs    map[string]string
		want    []string // paths requested
		wantDoc string   // path the document was taken from
	}{
		{"openapi.json first", map[string]string{"/openapi.json": tinySpec, "/": tinySpec}, []string{"/openapi.json"}, "/openapi.json"},
		{"root", map[string]string{"/": tinyYAML, "/api/openapi.json": tinySpec}, []string{"/openapi.json", "/"}, "/"},
		{"api", map[string]string{"/api/openapi.json": tinySpec}, []string{"/openapi.json", "/", "/api/openapi.json"}, "/api/openapi.json"},
		{
			"docs, skipping answers that are not OpenAPI 3",
			map[string]string{
				"/openapi.json":      `{"swagger": "2.0"}`,
				"/":                  "<html><body>Welcome</body></html>",
				"/api/openapi.json":  `{"openapi": "2.5"}`,
				"/docs/openapi.json": tinySpec,
			},
			[]string{"/openapi.json", "/", "/api/openapi.json", "/docs/openapi.json"},
			"/docs/openapi.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := docServer(t, tt.docs)
			s := loaded(t, &Options{URL: url + "/"})
			if diff := cmp.Diff(tt.want, paths(rec.take())); diff != "" {
				t.Errorf("requested paths mismatch (-want +got):\n%s", diff)
			}
			st := s.Status()
			if st.SpecURL != url+tt.wantDoc || st.State != StateReady || st.Tools != 1 {
				t.Errorf("status = %+v, want ready with 1 tool from %s", st, url+tt.wantDoc)
			}
		})
	}
}

func TestDiscoveryFailureListsTried(t *testing.T) {
	url, _ := docServer(t, map[string]string{"/": "just text"})
	s := New("broken", &Options{URL: url})
	err := s.Load(t.Context())
	if err == nil {
		t.Fatal("Load succeeded, want an error")
	}
	for _, want := range []string{
		`server "broken"`,
		url + "/openapi.json (HTTP 404 Not Found)",
		url + "/ (not an OpenAPI 3 document: the top level is not an object)",
		url + "/api/openapi.json (HTTP 404 Not Found)",
		url + "/docs/openapi.json (HTTP 404 Not Found)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	st := s.Status()
	if st.State != StateFailed || st.LastError != err.Error() || st.Tools != 0 || len(s.Tools()) != 0 {
		t.Errorf("status = %+v, tools %d; want failed with the error and no tools", st, len(s.Tools()))
	}
}

func TestExplicitSpec(t *testing.T) {
	url, rec := docServer(t, map[string]string{"/openapi.json": tinySpec, "/specs/api.yaml": tinyYAML})
	t.Run("url", func(t *testing.T) {
		s := loaded(t, &Options{URL: url, Spec: url + "/specs/api.yaml"})
		if diff := cmp.Diff([]string{"/specs/api.yaml"}, paths(rec.take())); diff != "" {
			t.Errorf("requested paths mismatch (-want +got):\n%s", diff)
		}
		if got := toolNames(s.Tools()); !cmp.Equal(got, []string{"ping"}) {
			t.Errorf("tools = %v", got)
		}
	})
	t.Run("file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "api.yaml")
		if err := os.WriteFile(p, []byte(tinyYAML), 0o600); err != nil {
			t.Fatal(err)
		}
		s := loaded(t, &Options{URL: url, Spec: p})
		if len(rec.take()) != 0 {
			t.Error("a file spec made HTTP requests")
		}
		if st := s.Status(); st.SpecURL != p || st.Tools != 1 {
			t.Errorf("status = %+v", st)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		s := New("x", &Options{URL: url, Spec: filepath.Join(t.TempDir(), "nope.json")})
		if err := s.Load(t.Context()); err == nil || !strings.Contains(err.Error(), "nope.json") {
			t.Errorf("Load error = %v, want one naming the file", err)
		}
	})
	t.Run("no url", func(t *testing.T) {
		s := New("x", nil)
		if err := s.Load(t.Context()); err == nil || !strings.Contains(err.Error(), "no url or spec") {
			t.Errorf("Load error = %v", err)
		}
	})
}

// TestBaseURL checks where calls go, given the configured URL and the
// document's servers entry.
func TestBaseURL(t *testing.T) {
	tests := []struct {
		name, url, servers, specURL, want string
	}{
		{"no servers", "http://h:1/", "", "", "http://h:1"},
		{"relative path", "http://h:1", "/v1", "", "http://h:1/v1"},
		{"relative to prefix", "http://h:1/gw", "v2/", "", "http://h:1/gw/v2"},
		{"absolute host replaced", "http://h:1/gw", "http://other:9", "", "http://h:1/gw"},
		{"absolute path kept, host not", "http://h:1", "https://other/api/v3", "", "http://h:1/api/v3"},
		{"variables", "http://h:1", "/{version}", "", "http://h:1/v9"},
		{"no url, absolute servers", "", "http://api.example/x", "", "http://api.example/x"},
		{"no url, relative to spec", "", "/api", "http://h:2/docs/openapi.json", "http://h:2/api"},
		{"no url, spec origin", "", "", "http://h:2/docs/openapi.json", "http://h:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"openapi": "3.0.0", "paths": {}`
			if tt.servers != "" {
				doc += `, "servers": [{"url": "` + tt.servers + `", "variables": {"version": {"default": "v9"}}}]`
			}
			d, err := parseDocument([]byte(doc + "}"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := New("x", &Options{URL: tt.url}).baseURL(d, tt.specURL)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("baseURL = %q, want %q", got, tt.want)
			}
		})
	}
}
