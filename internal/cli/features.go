package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// The listing commands (`prompts`, `resources`) share their shape: start
// the MCP servers, ask each ready one, print a table or JSON. These helpers
// hold that shape once.

// listingCmd builds `prompts` or `resources`, with --json and --server: it
// starts the MCP servers (only the one --server names) and, for each ready
// one in name order, calls row, which writes the server's table rows to w
// and returns its entry of the --json output. header, when not empty, is
// the table's first line. The returned flag is --json, for subcommands to
// share.
func listingCmd[L any](g *globals, use, short, header string, row func(cmd *cobra.Command, a *app.App, server string, w io.Writer) (L, error)) (*cobra.Command, *bool) {
	var asJSON bool
	var server string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := g.start(cmd.Context(), onlyServer(server))
			if err != nil {
				return err
			}
			defer a.Close()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			var w io.Writer = tw
			switch {
			case asJSON:
				w = io.Discard
			case header != "":
				fmt.Fprintln(tw, header)
			}
			var all []L
			for _, s := range mcpReady(a, server) {
				l, err := row(cmd, a, s, w)
				if err != nil {
					return err
				}
				all = append(all, l)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), all)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&server, "server", "", "only this MCP `server`")
	return cmd, &asJSON
}

// withServer starts the one MCP server named and runs run on the app.
func (g *globals) withServer(ctx context.Context, name string, run func(a *app.App) error) error {
	a, err := g.start(ctx, []string{name})
	if err != nil {
		return err
	}
	defer a.Close()
	return run(a)
}

func onlyServer(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// mcpReady returns the names of the ready MCP servers (only server when set).
func mcpReady(a *app.App, server string) []string {
	var names []string
	for _, s := range a.Servers() {
		if s.Kind == app.KindMCP && s.State == "ready" && (server == "" || s.Name == server) {
			names = append(names, s.Name)
		}
	}
	return names
}
