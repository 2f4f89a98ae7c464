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

// DecodeModel reads one models entry given as JSON, as [DecodeMCPServer]
// does. The provider's key variables (OPENAI_API_KEY, ...) are not read:
// an entry added at run time carries its own apiKey.
func DecodeModel(name string, data []byte) (Model, error) {
	m := defaultModel()
	return m, decodeEntry(joinKey("models", name), data, &m)
}

// Entries are configuration entries added at run time, by kind.
type Entries struct {
	MCPServers     map[string]MCPServer
	OpenAPIServers map[string]OpenAPIServer
	Models         map[string]Model
}

// WithEntries returns a copy of c with e's entries added, leaving out
// names c already has (the file wins). The copy shares none of the maps
// it changes with c; call Validate on it.
func (c *Config) WithEntries(e Entries) *Config {
	out := *c
	out.MCPServers = cloneMap(c.MCPServers)
	out.OpenAPIServers = cloneMap(c.OpenAPIServers)
	out.Models = cloneMap(c.Models)
	for name, s := range e.MCPServers {
		if !c.HasServer(name) {
			out.MCPServers[name] = s
		}
	}
	for name, s := range e.OpenAPIServers {
		if !c.HasServer(name) {
			out.OpenAPIServers[name] = s
		}
	}
	for name, m := range e.Models {
		if !c.HasModel(name) {
			out.Models[name] = m
		}
	}
	return &out
}

func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return maps.Clone(m)
}

// HasServer reports whether c (the configuration as read from the file)
// has an MCP server or OpenAPI service named name; such an entry is
// changed in the file, not at run time.
func (c *Config) HasServer(name string) bool {
	_, mcp := c.MCPServers[name]
	_, api := c.OpenAPIServers[name]
	return mcp || api
}

// HasModel reports whether c has a model named name.
func (c *Config) HasModel(name string) bool {
	_, ok := c.Models[name]
	return ok
}
