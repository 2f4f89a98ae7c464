package app

import (
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// mcpServers maps the enabled, selected mcpServers entries onto the host's
// ServerConfig, in name order.
func mcpServers(cfg *config.Config, only []string) []mcphost.ServerConfig {
	var out []mcphost.ServerConfig
	for _, name := range sortedKeys(cfg.MCPServers) {
		s := cfg.MCPServers[name]
		if s.Disabled || !selected(only, name) {
			continue
		}
		out = append(out, mcpServer(cfg, name, s))
	}
	return out
}

func mcpServer(cfg *config.Config, name string, s config.MCPServer) mcphost.ServerConfig {
	sc := mcphost.ServerConfig{
		Name:            name,
		Transport:       transport(s.Transport()),
		Command:         s.Command,
		Args:            s.Args,
		Env:             s.Env,
		InheritEnv:      s.InheritEnv,
		Dir:             s.Cwd,
		URL:             s.URL,
		Headers:         s.Headers,
		CallTimeout:     s.Timeout,
		ProtocolVersion: s.ProtocolVersion,
		Allow:           s.Tools.Allow,
		Deny:            s.Tools.Deny,
		ShutdownTimeout: s.ShutdownTimeout,
	}
	if s.Transport() == config.TransportStdio {
		sc.Sandbox = serverSandbox(cfg, s)
	}
	if o := s.OAuth; o != nil {
		sc.OAuth = &mcphost.OAuthConfig{
			ClientID:     o.ClientID,
			ClientSecret: o.ClientSecret.Value(),
			Scopes:       o.Scopes,
			RedirectURL:  o.RedirectURL,

			ClientMetadataURL: o.ClientMetadataURL,
		}
	}
	return sc
}

func transport(t config.Transport) mcphost.Transport {
	switch t {
	case config.TransportStdio:
		return mcphost.TransportStdio
	case config.TransportHTTP:
		return mcphost.TransportHTTP
	case config.TransportSSE:
		return mcphost.TransportSSE
	default:
		return mcphost.TransportAuto
	}
}
