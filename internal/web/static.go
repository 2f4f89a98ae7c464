package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var staticFS embed.FS

// staticFile is one embedded asset with its content hash.
type staticFile struct {
	body        []byte
	hash        string // first 16 hex digits of the SHA-256
	contentType string
}

// staticFiles serves the embedded assets. Pages link them as
// /static/NAME?v=HASH: a request carrying the current hash may be cached
// for a year (the URL changes with the content), any other is revalidated
// through its ETag.
type staticFiles struct {
	files map[string]staticFile
}

// contentType is set explicitly rather than from the system's MIME
// tables, which differ between machines.
func contentType(ext string) string {
	switch ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

func newStaticFiles(fsys fs.FS) *staticFiles {
	s := &staticFiles{files: map[string]staticFile{}}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.files[p] = staticFile{body: b, hash: hex.EncodeToString(sum[:])[:16], contentType: contentType(path.Ext(p))}
		return nil
	})
	return s
}

// url returns the versioned URL of the asset name. An unknown name is a
// template bug; it yields a URL that answers 404 so the tests notice.
func (s *staticFiles) url(name string) string {
	f, ok := s.files[name]
	if !ok {
		return "/static/missing/" + name
	}
	return "/static/" + name + "?v=" + f.hash
}

func (s *staticFiles) serve(w http.ResponseWriter, r *http.Request, name string) {
	f, ok := s.files[name]
	if !ok || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", `"`+f.hash+`"`)
	if r.URL.Query().Get("v") == f.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	// ServeContent answers If-None-Match with 304, HEAD and ranges.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
}
