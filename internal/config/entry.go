package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
)

// SecretKeyEnv names the variable that holds the key sealing the secrets
// of configuration entries added at run time (see [Config.SecretKey]).
const SecretKeyEnv = "SWITCHBOARD_SECRET_KEY"

// DecodeMCPServer reads one mcpServers entry given as JSON, as the file
// would (defaults first, the same keys, durations and sandbox forms), for
// the server named name. ${VAR} references are refused rather than
// expanded: an entry added at run time comes from a person over the API,
// and expanding it would hand them Switchboard's environment.
func DecodeMCPServer(name string, data []byte) (MCPServer, error) {
	s := defaultMCPServer()
	return s, decodeEntry(joinKey("mcpServers", name), data, &s)
}

// DecodeOpenAPIServer reads one openapiServers entry given as JSON, as
// [DecodeMCPServer] does.
func DecodeOpenAPIServer(name string, data []byte) (OpenAPIServer, error) {
	s := defaultOpenAPIServer()
	return s, decodeEntry(joinKey("openapiServers", name), data, &s)
}

func decodeEntry(path string, data []byte, v any) error {
	n, err := parse(data, FormatJSON)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if n == nil {
		return fmt.Errorf("%s: the entry is empty; send a JSON object", path)
	}
	d := &decoder{getenv: func(string) string { return "" }, secretPaths: map[string]bool{}}
	d.decode(path, n, reflect.ValueOf(v).Elem())
	for _, u := range d.unset {
		d.errs = append(d.errs, &FieldError{Path: u.path, Msg: fmt.Sprintf(
			"uses ${%s}: entries added at run time are not expanded from the environment; write the value itself (secrets are stored encrypted)", u.name)})
	}
	return errors.Join(d.errs...)
}

// WithEntries returns a copy of c with the given MCP servers and OpenAPI
// services added, leaving out names c already has (the file wins). The
// copy shares nothing c's maps hold; call Validate on it.
func (c *Config) WithEntries(servers map[string]MCPServer, services map[string]OpenAPIServer) *Config {
	out := *c
	out.MCPServers = maps.Clone(c.MCPServers)
	out.OpenAPIServers = maps.Clone(c.OpenAPIServers)
	if out.MCPServers == nil {
		out.MCPServers = map[string]MCPServer{}
	}
	if out.OpenAPIServers == nil {
		out.OpenAPIServers = map[string]OpenAPIServer{}
	}
	for name, s := range servers {
		if !c.FromFile(name) {
			out.MCPServers[name] = s
		}
	}
	for name, s := range services {
		if !c.FromFile(name) {
			out.OpenAPIServers[name] = s
		}
	}
	return &out
}

// FromFile reports whether c (the configuration as read from the file)
// has a server or service named name; such an entry is changed in the
// file, not at run time.
func (c *Config) FromFile(name string) bool {
	_, mcp := c.MCPServers[name]
	_, api := c.OpenAPIServers[name]
	return mcp || api
}
