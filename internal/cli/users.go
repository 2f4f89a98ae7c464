package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newUsersCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "Manage the users, their roles and API keys of the HTTP API",
		Long: `Users call the HTTP API, the OpenAI-compatible API and /mcp with
"Authorization: Bearer <key>". Only a hash of each key is stored.

While no user exists, Switchboard on a loopback address answers requests
without a key, as the anonymous user "local" (a reserved name) with every
right. The moment the first user is created, by this command or any other
process on the same database, every request needs a key: a running
"switchboard serve" applies it without a restart.

Each user has a role. A "user" chats, calls the tools its --allow globs
permit, and sees its own conversations, approvals and audit records. An
"admin" may also create, change and delete agents and their servers,
restart MCP servers, read their stderr, and read every user's audit
records. Create the first user with --admin.

A database from before roles gets one admin when it is migrated: its
oldest user, if none is admin. Everyone else becomes a "user". The operator
(whoever runs this command) can change that at any time:
  switchboard users set NAME --admin`,
	}
	var (
		allow []string
		admin bool
	)
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a user and print its API key (shown once)",
		Args:  cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			u, key, err := a.AddUser(cmd.Context(), args[0], admin, allow)
			if err != nil {
				return usageErr(err, "")
			}
			fmt.Fprintln(cmd.OutOrStdout(), key)
			fmt.Fprintf(cmd.ErrOrStderr(), "user %s created; role: %s; tools: %s\nthe key above is shown once: store it now\n", u.Name, u.Role, strings.Join(u.Permissions, ", "))
			if !admin {
				if us, err := a.Users(cmd.Context()); err == nil && !anyAdmin(us) {
					fmt.Fprintf(cmd.ErrOrStderr(), "no user is an admin, so no one can manage agents or servers over the API; make one with `switchboard users set NAME --admin`\n")
				}
			}
			return nil
		}),
	}
	add.Flags().StringSliceVar(&allow, "allow", nil, "tool-name `globs` the user may call, e.g. files__*,calculator (default: every tool)")
	add.Flags().BoolVar(&admin, "admin", false, "give the user the admin role: manage agents, their servers, restarts, server stderr, and read every user's audit")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the users with their roles",
		Args:  cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			us, err := a.Users(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tROLE\tTOOLS\tSTATE\tCREATED")
			for _, u := range us {
				state := "enabled"
				if u.Disabled {
					state = "disabled"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Name, u.Role, strings.Join(u.Permissions, ","), state, u.CreatedAt.Local().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		}),
	}

	var (
		setAllow                         []string
		setAdmin, noAdmin, disable, enbl bool
	)
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Change a user's role, tools or state; running servers apply it at once",
		Long: `Change a user's role (--admin, --no-admin), tools (--allow, which
REPLACES the user's globs: give every glob the user should keep) or state
(--disable, --enable). Flags not given leave that part as it is. Running
servers apply the change without a restart.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			var c app.UserChange
			switch {
			case setAdmin && noAdmin:
				return usageErr(errors.New("--admin and --no-admin contradict each other"), "give one of them")
			case setAdmin || noAdmin:
				c.Admin = &setAdmin
			}
			switch {
			case disable && enbl:
				return usageErr(errors.New("--disable and --enable contradict each other"), "give one of them")
			case disable || enbl:
				c.Disabled = &disable
			}
			if cmd.Flags().Changed("allow") {
				if len(setAllow) == 0 {
					return usageErr(errors.New("--allow needs at least one glob"), "to allow no tool, disable the user with --disable")
				}
				c.Permissions = setAllow
			}
			if c.Admin == nil && c.Disabled == nil && c.Permissions == nil {
				return usageErr(errors.New("nothing to change"), "give --admin, --no-admin, --allow GLOB, --disable or --enable")
			}
			u, err := a.SetUser(cmd.Context(), args[0], c)
			if err != nil {
				return usageErr(err, "`switchboard users list` shows the users")
			}
			state := "enabled"
			if u.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s: role %s; tools: %s; %s\n", u.Name, u.Role, strings.Join(u.Permissions, ", "), state)
			return nil
		}),
	}
	set.Flags().BoolVar(&setAdmin, "admin", false, "make the user an admin")
	set.Flags().BoolVar(&noAdmin, "no-admin", false, "make the user an ordinary user (not an admin)")
	set.Flags().StringSliceVar(&setAllow, "allow", nil, "tool-name `globs` the user may call; REPLACES the current globs (repeat or comma-separate to give several)")
	set.Flags().BoolVar(&disable, "disable", false, "disable the user: its key is refused (403) until --enable")
	set.Flags().BoolVar(&enbl, "enable", false, "enable a disabled user")

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
	cmd.AddCommand(add, list, set, rm)
	return cmd
}

func anyAdmin(us []app.User) bool {
	for _, u := range us {
		if u.IsAdmin() {
			return true
		}
	}
	return false
}
