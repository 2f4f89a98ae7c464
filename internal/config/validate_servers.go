package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"
)

// checkServerName reports names that cannot become part of a tool name.
func checkServerName(p *problems, at, name string) {
	switch {
	case name == "":
		p.add(at, "a server name must not be empty")
	case strings.ContainsFunc(name, func(r rune) bool { return !isNameRune(r, ".-") }):
		p.add(at, "server name %q may use only letters, digits, _, . and -", name)
	case strings.Contains(name, "__"):
		p.add(at, "server name %q contains \"__\", which separates server and tool in catalogue names (server__tool); use a single _ or -", name)
	case name == BuiltinServer:
		p.add(at, "the server name %q is reserved for the built-in tools; choose another", name)
	}
}

func isNameRune(r rune, extra string) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(extra, r)
}

func (c *Config) validateMCPServers(p *problems) {
	for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
		s := c.MCPServers[name]
		at := joinKey("mcpServers", name)
		checkServerName(p, at, name)
		switch t := s.Transport(); {
		case s.Command != "" && s.URL != "":
			p.add(at, "set either command (a local program) or url (a remote server), not both")
		case s.Command == "" && s.URL == "":
			p.add(at, "set command to run a local server or url to reach a remote one")
		case t == "":
			p.add(at+".type", "unknown type %q; use stdio, http or sse (or leave it out)", s.Type)
		case t == TransportStdio && s.Command == "":
			p.add(at+".command", "type stdio needs command, the program to run")
		case t != TransportStdio && s.URL == "":
			p.add(at+".url", "type %s needs url, the server's endpoint", s.Type)
		}
		if s.URL != "" {
			checkURL(p, at+".url", s.URL)
			if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
				p.add(at, "args, env and cwd apply only to stdio servers (with command); remove them")
			}
		}
		if s.URL != "" && (s.Sandbox != nil || len(s.InheritEnv) > 0) {
			p.add(at, "sandbox and inheritEnv apply only to stdio servers (with command); remove them")
		}
		if s.Sandbox != nil {
			checkSandbox(p, at+".sandbox", s.Sandbox)
		}
		checkGlobs(p, at+".inheritEnv", s.InheritEnv)
		checkPinning(p, at+".pinning", s.Pinning)
		if s.Command != "" && (len(s.Headers) > 0 || s.OAuth != nil) {
			p.add(at, "headers and oauth apply only to remote servers (with url); remove them")
		}
		for k := range s.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				p.add(at+".env", "invalid variable name %q", k)
			}
		}
		checkHeaders(p, at+".headers", s.Headers)
		checkPerUser(p, at, s.Credentials, s.PerUser, s.Command != "")
		if v := s.ProtocolVersion; v != "" && !slices.Contains(ProtocolVersions(), v) {
			p.add(at+".protocolVersion", "unknown protocol version %q; use one of %s or leave it out to negotiate", v, strings.Join(ProtocolVersions(), ", "))
		}
		checkPositive(p, at+".timeout", s.Timeout, DefaultCallTimeout)
		checkNonNegative(p, at+".shutdownTimeout", s.ShutdownTimeout)
		checkFilter(p, at+".tools", s.Tools)
		checkRoots(p, at+".roots", s.Roots)
		if o := s.OAuth; o != nil && o.ClientMetadataURL != "" {
			if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || len(u.Path) < 2 {
				p.add(at+".oauth.clientMetadataURL", "%q is not an https URL with a path, such as https://example.com/oauth/client.json", o.ClientMetadataURL)
			}
		}
		if o := s.OAuth; o != nil && o.RedirectURL != "" {
			checkURL(p, at+".oauth.redirectURL", o.RedirectURL)
		}
		if o := s.OAuth; o != nil {
			checkOAuthGrant(p, at+".oauth", o)
		}
	}
}

func (c *Config) validateOpenAPIServers(p *problems) {
	for _, name := range slices.Sorted(maps.Keys(c.OpenAPIServers)) {
		s := c.OpenAPIServers[name]
		at := joinKey("openapiServers", name)
		checkServerName(p, at, name)
		checkPinning(p, at+".pinning", s.Pinning)
		if _, dup := c.MCPServers[name]; dup {
			p.add(at, "the name %q is also an mcpServers entry; server names must be unique because tool names are server__tool", name)
		}
		switch {
		case s.URL == "" && s.Spec == "":
			p.add(at+".url", "set url, the base URL of the service")
		case s.URL != "":
			checkURL(p, at+".url", s.URL)
		}
		if strings.Contains(s.Spec, "://") {
			checkURL(p, at+".spec", s.Spec)
		}
		checkHeaders(p, at+".headers", s.Headers)
		checkPerUser(p, at, s.Credentials, s.PerUser, false)
		checkFilter(p, at+".operations", s.Operations)
		checkPositive(p, at+".timeout", s.Timeout, DefaultCallTimeout)
		checkNonNegative(p, at+".ttl", s.TTL)
	}
}

// checkPinning reports a pinning value other than hold and auto.
func checkPinning(p *problems, at, v string) {
	if v != "" && v != PinningHold && v != PinningAuto {
		p.add(at, "unknown pinning %q; use hold (hold changed tools until an admin accepts them, the default) or auto (accept changes on sight)", v)
	}
}
