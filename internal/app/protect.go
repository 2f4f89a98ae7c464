package app

import (
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// protectedItems maps the configuration onto the one rule for
// Switchboard's own files (internal/protect): the data directory, the
// config file loaded, every file discovery would try (a tool that wrote
// one would choose the next configuration), and the trust records.
func protectedItems(cfg *config.Config) []protect.Item {
	items := []protect.Item{
		{Path: cfg.Data, What: "Switchboard's data directory"},
		{Path: cfg.Source, What: "Switchboard's config file"},
	}
	for _, d := range cfg.TrustDirs {
		items = append(items, protect.Item{Path: d, What: "Switchboard's record of trusted config files"})
	}
	for _, c := range cfg.Candidates {
		if c != cfg.Source {
			items = append(items, protect.Item{Path: c, What: "a config file Switchboard would load"})
		}
	}
	return items
}

// writableDirs are the directories tools may write in: the built-in
// roots (file tools, terminal) and the write paths of sandboxed stdio
// servers. A server without a sandbox may write anywhere its user can;
// that is the person's choice in the config and is not recorded.
func writableDirs(cfg *config.Config) []string {
	dirs := append([]string{}, cfg.Builtin.Roots...)
	for _, s := range cfg.MCPServers {
		if s.Disabled || s.Transport() != config.TransportStdio {
			continue
		}
		if p := serverSandbox(cfg, s); p != nil {
			dirs = append(dirs, p.Write...)
		}
	}
	return dirs
}

// protectServers makes each stdio server's sandbox hide where
// Switchboard's files are at each (re)start, not only where they were
// when the config was read.
func (a *App) protectServers(scs []mcphost.ServerConfig) []mcphost.ServerConfig {
	for i := range scs {
		if p := scs[i].Sandbox; p != nil {
			q := *p
			q.Protected = a.protected.Paths
			scs[i].Sandbox = &q
		}
	}
	return scs
}

// protectTerminal makes the terminal's sandbox hide where Switchboard's
// files are at each command.
func (a *App) protectTerminal(p sandbox.Policy) sandbox.Policy {
	p.Protected = a.protected.Paths
	return p
}
