package config

import "github.com/switchboard-mcp/switchboard/internal/redact"

// SecretValues returns every secret value c holds: API keys and bearer
// tokens, header and env values with secret names, URL user info and
// secret query parameters, and the values of secret command-line flags.
// Logs and status texts hide them wherever they appear (redact.Secrets),
// since a failing server's stderr or error may quote them.
func (c *Config) SecretValues() []string {
	var out []string
	for _, s := range c.MCPServers {
		out = append(out, redact.ArgValues(s.Args)...)
		out = append(out, redact.URLValues(s.URL)...)
		out = append(out, redact.MapValues(s.Headers)...)
		out = append(out, redact.MapValues(s.Env)...)
		if s.OAuth != nil {
			out = append(out, s.OAuth.ClientSecret.Value())
		}
	}
	for _, s := range c.OpenAPIServers {
		out = append(out, s.Bearer.Value())
		out = append(out, redact.URLValues(s.URL)...)
		out = append(out, redact.URLValues(s.Spec)...)
		out = append(out, redact.MapValues(s.Headers)...)
	}
	for _, m := range c.Models {
		out = append(out, m.APIKey.Value())
		out = append(out, redact.URLValues(m.BaseURL)...)
		out = append(out, redact.MapValues(m.Headers)...)
	}
	out = append(out, redact.URLValues(c.Database.URL)...)
	return out
}
