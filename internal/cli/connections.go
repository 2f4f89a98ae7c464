package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newConnectionsCmd(g *globals) *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "connections",
		Short: "List, set and remove a user's own credentials for per-user servers",
		Long: `A server or OpenAPI service with "credentials: perUser" calls upstream
with each user's own credential: a token or header value the user
connects. Users connect theirs over the API (PUT /api/v1/connections/NAME);
the operator, who holds the database and the key, can do it here for a
user. The value is read from standard input, never from the command line,
stored encrypted, and never shown again.`,
		Args: cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			id, err := a.UserIDByName(cmd.Context(), user)
			if err != nil {
				return usageErr(err, "name an existing user with --user (see switchboard users)")
			}
			cs, err := a.UserConnections().ListConnections(cmd.Context(), id)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SERVER\tKIND\tTAKES\tCONNECTED")
			for _, c := range cs {
				since := "no"
				if c.Connected {
					since = "since " + c.Since.Local().Format("2006-01-02 15:04")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Server, c.Kind, c.Takes, since)
			}
			return tw.Flush()
		}),
	}
	cmd.PersistentFlags().StringVar(&user, "user", "", "the user whose credentials these are (required)")
	_ = cmd.MarkPersistentFlagRequired("user")
	set := &cobra.Command{
		Use:   "set SERVER",
		Short: "Connect the user's credential for SERVER, read from standard input",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			id, err := a.UserIDByName(cmd.Context(), user)
			if err != nil {
				return usageErr(err, "name an existing user with --user (see switchboard users)")
			}
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			value := strings.TrimRight(line, "\r\n")
			if value == "" {
				return usageErr(errors.Join(errors.New("no value on standard input"), err), "pipe it in: printf %s \"$TOKEN\" | switchboard connections set "+args[0]+" --user "+user)
			}
			c, err := a.UserConnections().Connect(cmd.Context(), id, args[0], value)
			if err != nil {
				return usageErr(err, "see switchboard connections --user "+user+" for the servers that take one")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s connected for %s (%s)\n", c.Server, user, c.Takes)
			return nil
		}),
	}
	rm := &cobra.Command{
		Use:   "rm SERVER",
		Short: "Remove the user's credential for SERVER; every replica stops using it at once",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			id, err := a.UserIDByName(cmd.Context(), user)
			if err != nil {
				return usageErr(err, "name an existing user with --user (see switchboard users)")
			}
			if err := a.UserConnections().Disconnect(cmd.Context(), id, args[0]); err != nil {
				return usageErr(err, "")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s disconnected for %s\n", args[0], user)
			return nil
		}),
	}
	cmd.AddCommand(set, rm)
	return cmd
}
