package server

import (
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
)

// The protected resources this server serves: the MCP endpoint and the
// REST API (everything else under the base URL). A token is bound to one
// of them (RFC 8707), so a token for /mcp is refused by the REST API.
const mcpResourcePath = "/mcp"

// baseURL is the server's public base URL, scheme://host[:port], which
// is also the OAuth issuer: [Options].PublicURL when set, else derived
// from the request only when its Host is loopback (a local server has no
// other name; a remote client naming a loopback Host learns only that
// name back). Otherwise it is "" and no metadata is served: a Host header
// from the network must not decide where clients send their credentials.
func (s *Server) baseURL(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/")
	}
	host := r.Host
	name := host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name = host[:i]
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if host == "" || !oauth.IsLoopbackHost(name) {
		return ""
	}
	if r.TLS != nil {
		return "https://" + host
	}
	return "http://" + host
}

// resourceOf is the canonical resource identifier a request to pattern
// is served as: base+"/mcp" for the MCP endpoint, base for the REST API.
func resourceOf(base, pattern string) string {
	if pattern == mcpResourcePath {
		return base + mcpResourcePath
	}
	return base
}

// challenge sets the WWW-Authenticate header of a 401 from the route
// pattern, pointing clients at the resource's metadata (RFC 9728 section
// 5.1). A request that carried a Switchboard credential that was refused
// gets error="invalid_token" (RFC 6750 section 3.1).
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, pattern string) {
	base := s.oauthBase(r)
	if base == "" {
		w.Header().Set("WWW-Authenticate", "Bearer")
		return
	}
	meta, err := oauth.MetadataURL(resourceOf(base, pattern))
	if err != nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		return
	}
	if _, had := bearerKey(r.Header.Get("Authorization")); had {
		w.Header().Set("WWW-Authenticate", oauth.ChallengeInvalidToken(meta))
		return
	}
	w.Header().Set("WWW-Authenticate", oauth.Challenge(meta))
}

// oauthBase is baseURL when this server issues and accepts OAuth tokens
// (Options.OAuth set), else "": without an authorization server behind
// them, metadata and challenges would send clients into a flow that
// cannot finish.
func (s *Server) oauthBase(r *http.Request) string {
	if !s.oauthOn() {
		return ""
	}
	return s.baseURL(r)
}

// errNoOAuth answers the OAuth routes of a server without Options.OAuth.
var errNoOAuth = &Error{Status: http.StatusNotFound, Code: "not_found", Msg: "OAuth is not enabled on this server: use an API key (Authorization: Bearer sb_...)"}

// errNoPublicURL answers the metadata routes when the base URL is unknown.
var errNoPublicURL = &Error{
	Status: http.StatusNotFound, Code: "no_public_url",
	Msg: "OAuth metadata needs the server's public URL: set server.publicURL (e.g. https://switchboard.example.com)",
}

// resourceMetadata serves RFC 9728 protected resource metadata: of the
// REST API at the bare well-known path, of /mcp below it.
func (s *Server) resourceMetadata(path string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		base := s.baseURL(r)
		if base == "" {
			return errNoPublicURL
		}
		name := "Switchboard REST API"
		if path == mcpResourcePath {
			name = "Switchboard MCP gateway"
		}
		w.Header().Set("Cache-Control", "max-age=300")
		writeJSON(w, http.StatusOK, oauth.ProtectedResource{
			Resource:               resourceOf(base, path),
			AuthorizationServers:   []string{base},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           name,
		})
		return nil
	}
}

func (s *Server) resourceMetadataREST() handlerFunc { return s.resourceMetadata("") }

func (s *Server) resourceMetadataMCP() handlerFunc { return s.resourceMetadata(mcpResourcePath) }

// serverMetadata serves RFC 8414 authorization server metadata; the
// issuer is the base URL.
func (s *Server) serverMetadata() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		base := s.baseURL(r)
		if base == "" {
			return errNoPublicURL
		}
		md, err := oauth.NewServerMetadata(base, nil)
		if err != nil {
			return &Error{Status: http.StatusNotFound, Code: "no_public_url", Msg: err.Error(), Err: err}
		}
		w.Header().Set("Cache-Control", "max-age=300")
		writeJSON(w, http.StatusOK, md)
		return nil
	}
}
