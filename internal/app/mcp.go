package app

import (
	"maps"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// mcpServers maps the enabled, selected mcpServers entries onto the host's
// ServerConfig, in name order.
func mcpServers(cfg *config.Config, only []string) []mcphost.ServerConfig {
	var out []mcphost.ServerConfig
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		s := cfg.MCPServers[name]
		if s.Disabled || !selected(only, name) {
			continue
		}
		sc := mcpServer(cfg, name, s)
		if s.Roots == nil {
			// No roots key: the explicit global setting, if any. Never
			// the built-in tools' roots: a server offered roots may drop
			// the directories of its own arguments for them.
			sc.Roots = cfg.MCPRoots
		}
		out = append(out, sc)
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
		Roots:           s.Roots,
	}
	if s.Transport() == config.TransportStdio {
		s = serverCommand(cfg, s)
		sc.Command, sc.Args = s.Command, s.Args
		sc.Sandbox = serverSandbox(cfg, s)
		sc.Command = confinedName(sc.Sandbox, sc.Command, sc.Dir)
	}
	if pu := config.PerUserOf(s.Credentials, s.PerUser); pu != nil {
		sc.PerUser = &mcphost.PerUserConfig{
			Header: pu.Header, Prefix: *pu.Prefix, Env: pu.Env,
			IdleTimeout: pu.IdleTimeout, MaxInstances: pu.MaxInstances,
		}
	}
	if o := s.OAuth; o != nil {
		sc.OAuth = &mcphost.OAuthConfig{
			Grant:        oauthGrant(o.Grant),
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
