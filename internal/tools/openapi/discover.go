package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// discoveryPaths are where a document is looked for under the base URL, in
// order: the conventional FastAPI location first, then the other places
// action servers put it.
var discoveryPaths = []string{"/openapi.json", "/", "/api/openapi.json", "/docs/openapi.json"}

// fetchDocument reads the document from Spec, or discovers it under URL. It
// returns the document and where it came from.
func (s *Server) fetchDocument(ctx context.Context) (*document, string, error) {
	if spec := s.opts.Spec; spec != "" {
		if isHTTPURL(spec) {
			doc, err := s.fetchURL(ctx, spec)
			if err != nil {
				return nil, "", fmt.Errorf("fetching %s: %w", spec, err)
			}
			return doc, spec, nil
		}
		file := strings.TrimPrefix(spec, "file://")
		b, err := readFileLimited(file)
		if err != nil {
			return nil, "", err
		}
		doc, err := parseDocument(b)
		if err != nil {
			return nil, "", fmt.Errorf("parsing %s: %w", file, err)
		}
		return doc, file, nil
	}
	if s.opts.URL == "" {
		return nil, "", errors.New("no url or spec configured")
	}
	if !isHTTPURL(s.opts.URL) {
		return nil, "", fmt.Errorf("url %q is not an http or https URL", s.opts.URL)
	}
	base := strings.TrimRight(s.opts.URL, "/")
	var tried []string
	for _, p := range discoveryPaths {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		u := base + p
		doc, err := s.fetchURL(ctx, u)
		if err == nil {
			return doc, u, nil
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", u, err))
	}
	return nil, "", fmt.Errorf("no OpenAPI 3 document found; tried %s; set spec to its URL or file", strings.Join(tried, ", "))
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func readFileLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading openapi file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading openapi file %s: %w", name, err)
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("reading openapi file %s: larger than %d bytes", name, maxSpecBytes)
	}
	return b, nil
}

// fetchURL GETs u with the server's auth headers and parses the answer.
func (s *Server) fetchURL(ctx context.Context, u string) (*document, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	// The credentials are the API's: a document elsewhere (a CDN, a
	// repository) is fetched without them.
	if s.credentialsFor(req.URL) {
		s.authorize(req)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("document larger than %d bytes", maxSpecBytes)
	}
	return parseDocument(b)
}

// unwrapURLError drops *url.Error's "Get <url>:" prefix, which the caller
// already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// credentialsFor reports whether a request to u may carry the server's
// credentials: when url is configured, only to its origin; without url, to
// the document's own address (which then decides the API's origin, see
// baseURL).
func (s *Server) credentialsFor(u *url.URL) bool {
	if s.opts.URL == "" {
		return true
	}
	base, err := url.Parse(s.opts.URL)
	return err == nil && origin(base) == origin(u)
}

// authorize adds the bearer token and extra headers to req.
func (s *Server) authorize(req *http.Request) {
	if s.opts.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+s.opts.Bearer)
	}
	for k, v := range s.opts.Headers {
		req.Header.Set(k, v)
	}
}

// baseURL decides where calls go. The configured URL decides scheme and
// host, so the token is never sent to a host the configuration did not
// name; the document's first servers entry contributes only its path
// ("/api/v1" and "http://x/api/v1" alike; a relative "v1" is appended to
// URL's path, and a bare "http://x" leaves URL as it is). Without
// a URL, the servers entry (resolved against the document's URL) is used.
func (s *Server) baseURL(doc *document, specURL string) (string, error) {
	serverPath := ""
	if list, ok := doc.root["servers"].([]any); ok && len(list) > 0 {
		if m, ok := list[0].(map[string]any); ok {
			serverPath, _ = m["url"].(string)
			serverPath = expandServerVars(serverPath, m["variables"])
		}
	}
	if s.opts.URL != "" {
		base, err := url.Parse(s.opts.URL)
		if err != nil || base.Host == "" {
			return "", fmt.Errorf("url %q is not an absolute URL", s.opts.URL)
		}
		if su, err := url.Parse(serverPath); err == nil && serverPath != "" {
			switch {
			case su.Host != "" && strings.Trim(su.Path, "/") == "":
				// "http://localhost:8000": the document only names its own
				// host, which the configured URL replaces (a proxy prefix
				// in URL stays).
			case su.Host != "" || strings.HasPrefix(su.Path, "/"):
				base.Path = su.Path
			default:
				base.Path = strings.TrimRight(base.Path, "/") + "/" + su.Path
			}
			base.RawPath = ""
		}
		return strings.TrimRight(base.String(), "/"), nil
	}
	if isHTTPURL(serverPath) {
		// Without url, a document fetched from one origin must not send the
		// calls, and the credentials with them, to another: whoever serves
		// the document would choose where the token goes.
		if isHTTPURL(specURL) {
			su, _ := url.Parse(serverPath)
			sp, _ := url.Parse(specURL)
			if origin(su) != origin(sp) {
				return "", fmt.Errorf("the document at %s names %s in servers, another origin than its own; set url in the config to the API's base URL (credentials go only where url points): %w",
					redact.URL(specURL), origin(su), ErrCrossOrigin)
			}
		}
		return strings.TrimRight(serverPath, "/"), nil
	}
	if isHTTPURL(specURL) {
		ref, err := url.Parse(serverPath)
		if err != nil {
			return "", fmt.Errorf("servers url %q: %w", serverPath, err)
		}
		if serverPath == "" {
			ref = &url.URL{Path: "/"}
		}
		spec, _ := url.Parse(specURL)
		return strings.TrimRight(spec.ResolveReference(ref).String(), "/"), nil
	}
	return "", errNoBase
}

// expandServerVars fills {name} in a servers URL with the variables'
// defaults.
func expandServerVars(u string, vars any) string {
	vm, ok := vars.(map[string]any)
	if !ok {
		return u
	}
	for name, v := range vm {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if def, ok := m["default"].(string); ok {
			u = strings.ReplaceAll(u, "{"+name+"}", def)
		}
	}
	return u
}
