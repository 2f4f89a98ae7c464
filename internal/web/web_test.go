package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/web"
)

func get(t *testing.T, h http.Handler, method, target string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", target, err)
	}
	return resp, string(b)
}

var titleRE = regexp.MustCompile(`<title>([^<]*)</title>`)

func TestPages(t *testing.T) {
	h := web.Handler(nil)
	tests := []struct {
		path, title, script string
	}{
		{"/", "Chat · Switchboard", "chat.js"},
		{"/servers", "Servers · Switchboard", "servers.js"},
		{"/tools", "Tools · Switchboard", "tools.js"},
		{"/audit", "Audit · Switchboard", "audit.js"},
		{"/connections", "Connections · Switchboard", "connections.js"},
		{"/grants", "Apps · Switchboard", "grants.js"},
		{"/oauth/authorize", "Authorize an app · Switchboard", "authorize.js"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := get(t, h, http.MethodGet, tt.path, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: status %d", tt.path, resp.StatusCode)
			}
			got := map[string]string{
				"content-type": resp.Header.Get("Content-Type"),
				"title":        titleRE.FindStringSubmatch(body)[1],
				"csp-script":   strings.Split(resp.Header.Get("Content-Security-Policy"), ";")[1],
			}
			want := map[string]string{
				"content-type": "text/html; charset=utf-8",
				"title":        tt.title,
				"csp-script":   " script-src 'self'",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET %s mismatch (-want +got):\n%s", tt.path, diff)
			}
			if !strings.Contains(body, "/static/"+tt.script+"?v=") || !strings.Contains(body, "/static/app.css?v=") {
				t.Errorf("GET %s: page does not link its versioned script and style:\n%s", tt.path, body)
			}
			if strings.Contains(body, "<script>") || strings.Contains(body, "https://") {
				t.Errorf("GET %s: page has inline script or an external URL", tt.path)
			}
		})
	}
}

func TestHeadServesNoBody(t *testing.T) {
	resp, body := get(t, web.Handler(nil), http.MethodHead, "/tools", nil)
	if resp.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /tools = %d with %d bytes, want 200 and none", resp.StatusCode, len(body))
	}
}

func TestEscapesHostileStrings(t *testing.T) {
	const evil = `<script>alert("x")</script>&"'`
	h := web.Handler(&web.Options{Title: evil, Version: evil})
	for _, path := range []string{"/", "/audit", "/nope/" + "%3Cscript%3Ealert(1)%3C/script%3E"} {
		_, body := get(t, h, http.MethodGet, path, nil)
		if strings.Contains(body, "<script>alert") {
			t.Errorf("GET %s: hostile text reached the page unescaped:\n%s", path, body)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(") {
			t.Errorf("GET %s: escaped hostile text missing:\n%s", path, body)
		}
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	h := web.Handler(nil)
	tests := []struct {
		name, method, path string
		want               int
	}{
		{"unknown page", http.MethodGet, "/nope", http.StatusNotFound},
		{"page with trailing slash", http.MethodGet, "/tools/", http.StatusNotFound},
		{"unknown asset", http.MethodGet, "/static/nope.js", http.StatusNotFound},
		{"asset directory", http.MethodGet, "/static/", http.StatusNotFound},
		{"dot dot", http.MethodGet, "/static/../web.go", http.StatusNotFound},
		{"post", http.MethodPost, "/", http.StatusMethodNotAllowed},
		{"delete asset", http.MethodDelete, "/static/app.css", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := get(t, h, tt.method, tt.path, nil)
			if resp.StatusCode != tt.want {
				t.Errorf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
			}
		})
	}
}

var assetRE = regexp.MustCompile(`/static/([a-z]+\.(?:css|js|svg))\?v=([0-9a-f]{16})`)

func TestStaticFiles(t *testing.T) {
	h := web.Handler(nil)
	_, page := get(t, h, http.MethodGet, "/", nil)
	links := assetRE.FindAllStringSubmatch(page, -1)
	if len(links) != 7 {
		t.Fatalf("chat page links %d assets, want 7 (icon, css, common.js, chat.js, slash.js, elicit.js, uploads.js):\n%s", len(links), page)
	}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	for _, l := range links {
		name, hash := l[1], l[2]
		t.Run(name, func(t *testing.T) {
			resp, body := get(t, h, http.MethodGet, l[0], nil)
			got := map[string]string{
				"status":       resp.Status,
				"cache":        resp.Header.Get("Cache-Control"),
				"etag":         resp.Header.Get("ETag"),
				"content-type": resp.Header.Get("Content-Type"),
			}
			want := map[string]string{
				"status":       "200 OK",
				"cache":        "public, max-age=31536000, immutable",
				"etag":         `"` + hash + `"`,
				"content-type": types[name[strings.LastIndex(name, "."):]],
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET %s mismatch (-want +got):\n%s", l[0], diff)
			}
			if body == "" {
				t.Errorf("GET %s: empty body", l[0])
			}
			// Without the current hash the file must be revalidated.
			resp, _ = get(t, h, http.MethodGet, "/static/"+name+"?v=old", nil)
			if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("GET with a stale hash: Cache-Control %q, want no-cache", cc)
			}
			resp, body = get(t, h, http.MethodGet, "/static/"+name, http.Header{"If-None-Match": {`"` + hash + `"`}})
			if resp.StatusCode != http.StatusNotModified || body != "" {
				t.Errorf("conditional GET = %d with %d bytes, want 304 and none", resp.StatusCode, len(body))
			}
		})
	}
}

// FuzzPaths checks that no request path makes the handler panic or answer
// anything but a page, an asset, 404 or 405.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{"/", "/tools", "/static/app.css", "/static/../../etc/passwd", "/%00", "/static/", "//", "/audit?x=<b>"} {
		f.Add(s)
	}
	h := web.Handler(nil)
	f.Fuzz(func(t *testing.T, p string) {
		req, err := http.NewRequest(http.MethodGet, "http://x"+p, nil)
		if err != nil || req.URL.Path == "" {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusNotFound, http.StatusNotModified:
		default:
			t.Errorf("GET %q = %d", p, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "<script>") {
			t.Errorf("GET %q: response has a raw <script> tag", p)
		}
	})
}
