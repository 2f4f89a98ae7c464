package cli

import (
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the whole tool catalogue as one MCP server on stdin/stdout",
		Long: `Runs Switchboard as an MCP server over stdio, so Claude Desktop, an IDE or any
MCP client can launch it and use every tool of the configured MCP servers,
OpenAPI services and built-in tools. Tools that need approval are asked of
the client through elicitation when it supports it, otherwise refused.
Every call is in the audit trail. Logs go to stderr.

Claude Desktop (claude_desktop_config.json):

  {"mcpServers": {"switchboard": {"command": "switchboard",
     "args": ["mcp", "--config", "/path/to/switchboard.yaml"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			a, err := app.New(cfg, &app.Options{Logger: g.logger(cfg, slog.LevelWarn)})
			if err != nil {
				return usageErr(err, "")
			}
			defer a.Close()
			if err := a.Start(cmd.Context()); err != nil {
				return err
			}
			gw, err := a.Gateway(cmd.Context(), app.GatewayOptions{})
			if err != nil {
				return usageErr(err, "check database.url or the data directory (--data)")
			}
			defer gw.Close()
			err = gw.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
			if cmd.Context().Err() != nil {
				return nil // interrupted: a normal way to stop a server
			}
			return err
		},
	}
}
