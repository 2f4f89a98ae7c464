package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// resourceListing is one server's entry of `resources --json`.
type resourceListing struct {
	Server    string                 `json:"server"`
	Resources []app.Resource         `json:"resources"`
	Templates []app.ResourceTemplate `json:"templates"`
	Error     string                 `json:"error,omitempty"`
}

func newResourcesCmd(g *globals) *cobra.Command {
	// Each server's rows follow a "== server" line, which has no cells and
	// so ends the table's column block: every server is aligned on its own.
	cmd, asJSON := listingCmd(g, "resources", "List the resources and resource templates of the MCP servers", "",
		func(cmd *cobra.Command, a *app.App, s string, w io.Writer) (resourceListing, error) {
			res, tpl, err := a.Resources(cmd.Context(), s)
			l := resourceListing{Server: s, Resources: res, Templates: tpl}
			fmt.Fprintf(w, "== %s\n", s)
			if err != nil {
				l.Error = err.Error()
				fmt.Fprintf(w, "  error: %s\n", oneLine(l.Error, 200))
			}
			for _, r := range res {
				fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", r.URI, r.Name, dash(r.MIMEType), oneLine(r.Description, 60))
			}
			for _, t := range tpl {
				fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", t.URITemplate, t.Name, dash(t.MIMEType), oneLine(t.Description, 60))
			}
			return l, nil
		})

	read := &cobra.Command{
		Use:   "read SERVER URI",
		Short: "Read one resource and print its contents",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withServer(cmd.Context(), args[0], func(a *app.App) error {
				contents, err := a.ReadResource(cmd.Context(), args[0], args[1])
				if err != nil {
					return usageErr(err, "`switchboard resources --server "+args[0]+"` lists what it offers")
				}
				if *asJSON {
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
			})
		},
	}
	read.Flags().BoolVar(asJSON, "json", false, "print JSON")
	cmd.AddCommand(read)
	return cmd
}
