package cli

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newMCPCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
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
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			if err := a.Start(cmd.Context()); err != nil {
				return err
			}
			gw, err := a.Gateway(cmd.Context(), app.GatewayOptions{})
			if err != nil {
				return usageErr(err, "check database.url or the data directory (--data)")
			}
			defer gw.Close()
			// Release tools an admin accepts meanwhile (tool pinning); the
			// watcher stops before the command returns.
			wctx, stopWatch := context.WithCancel(cmd.Context())
			var watch sync.WaitGroup
			watch.Go(func() { a.WatchPins(wctx) })
			defer func() { stopWatch(); watch.Wait() }()
			err = gw.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
			if cmd.Context().Err() != nil {
				return nil // interrupted: a normal way to stop a server
			}
			return err
		}),
	}
	cmd.AddCommand(newLoginCmd(g))
	return cmd
}

func newLoginCmd(g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Authorize Switchboard with a remote MCP server that requires OAuth",
		Long: `Opens the server's authorization page (print the URL and, when possible, the
browser), waits for the browser to come back to the redirect URL (oauth.redirectURL,
default http://127.0.0.1:8976/callback), and stores the token in the data
directory with 0600 permissions. Every later start reuses and refreshes it.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			show := func(authURL string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "Open this page to authorize Switchboard:\n\n  %s\n\n", authURL)
				openBrowser(ctx, authURL)
			}
			if err := a.Login(ctx, args[0], show); err != nil {
				return usageErr(err, "check the server's url and oauth settings; `switchboard doctor` shows the connection")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "logged in to %s; the token is stored in %s\n", args[0], a.Config().Data)
			return nil
		}),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the browser")
	return cmd
}

// openBrowser asks the desktop to open u; where there is none, the printed
// URL is the way.
func openBrowser(ctx context.Context, u string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, "xdg-open", u).Run() // best effort
}
