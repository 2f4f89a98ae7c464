package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// Options configure [Handler]. A nil *Options or a zero field means the
// default.
type Options struct {
	// Title names the site in page titles and the header; default
	// "Switchboard".
	Title string
	// Version is shown in the footer when set (the build's version).
	Version string
	// SignIn, when set, names the OpenID provider people sign in with:
	// the header offers "Sign in with <SignIn>" (GET /auth/login).
	SignIn string
	// Logger receives template failures; nil discards them.
	Logger *slog.Logger
}

// page is one HTML page of the UI.
type page struct {
	path  string // URL path
	name  string // template file without .html, also the script's name
	title string // shown in <title> and the nav
}

// pages lists the UI's pages in nav order.
func pages() []page {
	return []page{
		{"/", "chat", "Chat"},
		{"/servers", "servers", "Servers"},
		{"/tools", "tools", "Tools"},
		{"/changes", "changes", "Held tools"},
		{"/audit", "audit", "Audit"},
		{"/connections", "connections", "Connections"},
		{"/grants", "grants", "Apps"},
	}
}

// flowPages are pages a flow leads to, not the nav: the OAuth consent
// page, which the server's GET /oauth/authorize shows once it has checked
// the request.
func flowPages() []page {
	return []page{{"/oauth/authorize", "authorize", "Authorize an app"}}
}

// handler serves the pages and the static files. It is immutable after
// [Handler] returns, so it is safe for concurrent use.
type handler struct {
	opts   Options
	logger *slog.Logger
	static *staticFiles
	// tmpl maps a page path to its parsed layout + page template.
	tmpl   map[string]*template.Template
	byPath map[string]page
}

// Handler returns the UI's handler: the pages at "/", "/servers", "/tools", "/changes"
// and "/audit", and their assets under "/static/". Other paths get 404 and
// methods other than GET and HEAD get 405. opts is copied; nil means
// defaults. The handler is safe for concurrent use.
//
// Handler panics if the embedded templates do not parse: that is a
// programming error caught by the package's tests.
func Handler(opts *Options) http.Handler {
	h := &handler{tmpl: map[string]*template.Template{}, byPath: map[string]page{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.Title == "" {
		h.opts.Title = "Switchboard"
	}
	h.logger = h.opts.Logger
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(fmt.Sprintf("web: opening embedded static files: %v", err))
	}
	h.static = newStaticFiles(sub)
	funcs := template.FuncMap{"asset": h.static.url}
	for _, p := range append(pages(), flowPages()...) {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p.name+".html")
		if err != nil {
			panic(fmt.Sprintf("web: parsing the %s page's templates: %v", p.name, err))
		}
		h.tmpl[p.path] = t
		h.byPath[p.path] = p
	}
	return h
}

// connectionsCallback is where a per-user server's authorization server
// sends the browser back (server.ConnectionsCallbackPath).
const connectionsCallback = "/connections/oauth/callback"

// navItem is one link of the page header.
type navItem struct {
	Path, Title string
	Current     bool
}

// pageData is what the layout and page templates see.
type pageData struct {
	Site    string
	Title   string
	Page    string
	Version string
	SignIn  string
	Nav     []navItem
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the web UI answers GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/static/"); ok {
		h.static.serve(w, r, rest)
		return
	}
	p, ok := h.byPath[r.URL.Path]
	if r.URL.Path == connectionsCallback {
		// The browser's return from an upstream's authorization server:
		// the Connections page, whose script finishes the authorization.
		p, ok = h.byPath["/connections"]
	}
	if !ok {
		h.notFound(w, r)
		return
	}
	h.render(w, r, p, http.StatusOK)
}

// render executes the page's template into a buffer first, so a template
// failure becomes a clean 500 instead of half a page.
func (h *handler) render(w http.ResponseWriter, r *http.Request, p page, status int) {
	data := pageData{Site: h.opts.Title, Title: p.title, Page: p.name, Version: h.opts.Version, SignIn: h.opts.SignIn}
	for _, q := range pages() {
		data.Nav = append(data.Nav, navItem{Path: q.path, Title: q.title, Current: q.path == p.path})
	}
	var buf bytes.Buffer
	if err := h.tmpl[p.path].Execute(&buf, data); err != nil {
		h.logger.ErrorContext(r.Context(), "rendering page", logKeyPage, p.name, logKeyErr, err)
		http.Error(w, "the page could not be rendered; the server log has the cause", http.StatusInternalServerError)
		return
	}
	setPageHeaders(w.Header())
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// notFound answers an unknown path with a small page that links home.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w.Header())
	w.WriteHeader(http.StatusNotFound)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Not found · %s</title>"+
		"<p>No page at %s. <a href=\"/\">Go to the chat</a>.</p></html>\n",
		template.HTMLEscapeString(h.opts.Title), template.HTMLEscapeString(r.URL.Path))
}

// contentSecurityPolicy allows only the server's own scripts, styles and
// API: no inline script, so an injected tag cannot run.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func setPageHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}
