package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The listing commands (`prompts`, `resources`) share their shape: start
// the MCP servers, ask each ready one, print a table or JSON. These helpers
// hold that shape once.

// listEach starts the MCP servers (only server when set) and calls list for
// each ready one, in name order. list writes the server's rows itself and
// returns its entry of the --json output, which listEach prints when
// asJSON; an error from list (a failed write) ends the listing.
func listEach[L any](cmd *cobra.Command, g *globals, server string, asJSON bool, list func(ctx context.Context, a *app.App, name string) (L, error)) error {
	a, err := g.start(cmd.Context(), onlyServer(server))
	if err != nil {
		return err
	}
	defer a.Close()
	var all []L
	for _, s := range mcpReady(a, server) {
		l, err := list(cmd.Context(), a, s)
		if err != nil {
			return err
		}
		all = append(all, l)
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), all)
	}
	return nil
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
		if s.Kind == tools.KindMCP && s.State == "ready" && (server == "" || s.Name == server) {
			names = append(names, s.Name)
		}
	}
	return names
}
