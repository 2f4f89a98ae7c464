package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newGrantsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "grants",
		Short: "List and revoke the OAuth grants users gave to MCP clients",
		Long: `An OAuth grant is one user's consent to one client (an MCP client that
signed in through Switchboard's authorization server) for one resource.
Revoking it refuses every access and refresh token issued from it, on every
replica sharing the database, from the next request on.`,
	}
	list := &cobra.Command{
		Use:   "list USER",
		Short: "List a user's live grants",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			gs, err := a.Grants(cmd.Context(), args[0])
			if err != nil {
				return usageErr(err, "")
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCLIENT\tRESOURCE\tSCOPES\tCREATED")
			for _, gr := range gs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", gr.ID, gr.ClientID, gr.Resource, strings.Join(gr.Scopes, " "), gr.CreatedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		}),
	}
	revoke := &cobra.Command{
		Use:   "revoke USER GRANT_ID",
		Short: "Revoke one of a user's grants and every token issued from it",
		Args:  cobra.ExactArgs(2),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			if err := a.RevokeGrant(cmd.Context(), args[0], args[1]); err != nil {
				return usageErr(err, "")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "grant %s of %s revoked\n", args[1], args[0])
			return nil
		}),
	}
	cmd.AddCommand(list, revoke)
	return cmd
}
