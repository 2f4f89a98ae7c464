package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newUsersCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "Manage the users and API keys of the HTTP API",
		Long: `Users call the HTTP API, the OpenAI-compatible API and /mcp with
"Authorization: Bearer <key>". Only a hash of each key is stored. Once a user
exists, every request needs a key, also on loopback.`,
	}
	var allow []string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a user and print its API key (shown once)",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			u, key, err := a.AddUser(cmd.Context(), args[0], allow)
			if err != nil {
				return usageErr(err, "")
			}
			fmt.Fprintln(cmd.OutOrStdout(), key)
			fmt.Fprintf(cmd.ErrOrStderr(), "user %s created; tools: %s\nthe key above is shown once: store it now\n", u.Name, strings.Join(u.Permissions, ", "))
			return nil
		}),
	}
	add.Flags().StringSliceVar(&allow, "allow", nil, "tool-name `globs` the user may call, e.g. files__*,calculator (default: every tool)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the users",
		Args:  cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			us, err := a.Users(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTOOLS\tCREATED")
			for _, u := range us {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Name, strings.Join(u.Permissions, ","), u.CreatedAt.Local().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		}),
	}
	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a user; its key stops working",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			if err := a.RemoveUser(cmd.Context(), args[0]); err != nil {
				return usageErr(err, "`switchboard users list` shows the users")
			}
			return nil
		}),
	}
	cmd.AddCommand(add, list, rm)
	return cmd
}
