package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func newResourcesCmd(g *globals) *cobra.Command {
	var asJSON bool
	var server string
	cmd := &cobra.Command{
		Use:   "resources",
		Short: "List the resources and resource templates of the MCP servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := g.start(cmd.Context(), onlyServer(server))
			if err != nil {
				return err
			}
			defer a.Close()
			type listing struct {
				Server    string `json:"server"`
				Resources any    `json:"resources"`
				Templates any    `json:"templates"`
				Error     string `json:"error,omitempty"`
			}
			var all []listing
			for _, s := range mcpReady(a, server) {
				l := listing{Server: s}
				res, err := a.Pool().Resources(cmd.Context(), s)
				tpl, terr := a.Pool().ResourceTemplates(cmd.Context(), s)
				if err = errors.Join(err, terr); err != nil {
					l.Error = err.Error()
				}
				l.Resources, l.Templates = res, tpl
				all = append(all, l)
				if asJSON {
					continue
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "== %s\n", s)
				if l.Error != "" {
					fmt.Fprintf(out, "  error: %s\n", oneLine(l.Error, 200))
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				for _, r := range res {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.URI, r.Name, dash(r.MIMEType), oneLine(r.Description, 60))
				}
				for _, t := range tpl {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", t.URITemplate, t.Name, dash(t.MIMEType), oneLine(t.Description, 60))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), all)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&server, "server", "", "only this MCP `server`")

	read := &cobra.Command{
		Use:   "read SERVER URI",
		Short: "Read one resource and print its contents",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := g.start(cmd.Context(), []string{args[0]})
			if err != nil {
				return err
			}
			defer a.Close()
			contents, err := a.Pool().ReadResource(cmd.Context(), args[0], args[1])
			if err != nil {
				return usageErr(err, "`switchboard resources --server "+args[0]+"` lists what it offers")
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), contents)
			}
			for _, c := range contents {
				if c.Text != "" {
					fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(c.Text, "\n"))
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "[%s %s, %d bytes]\n", c.URI, c.MIMEType, len(c.Blob))
				}
			}
			return nil
		},
	}
	read.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(read)
	return cmd
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
