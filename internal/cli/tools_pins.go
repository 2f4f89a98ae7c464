package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newToolsChangesCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "List held tools: tools whose server changed their definition, with a diff",
		Long: `Switchboard pins every MCP and OpenAPI tool the first time it sees it: the
hash of its definition (title, description, input and output schema,
annotations) is stored. When a server later changes a tool's definition, the
tool is held: models are not offered it and calls to it fail, in agent runs
and through /mcp alike, until an admin accepts the change with
` + "`switchboard tools accept NAME`" + `.

changes lists the held tools with a unified diff from the accepted definition
to the changed one. Read the diff before accepting: a description that now
tells the model to read files or send data elsewhere is the attack pinning
stops. A server with "pinning: auto" in its config has its changes accepted
on sight, audited.`,
		Args: cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			changes, err := a.ToolChanges(cmd.Context())
			if err != nil {
				return usageErr(err, "check database.url or the data directory (--data)")
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, changes)
			}
			if len(changes) == 0 {
				fmt.Fprintln(out, "No held tools: every tool's definition is the accepted one.")
				return nil
			}
			for _, c := range changes {
				fmt.Fprintf(out, "%s (server %s, held since %s)\n", c.Name, c.Server, c.HeldSince.Local().Format("2006-01-02 15:04:05"))
				fmt.Fprintln(out, strings.TrimRight(c.Diff, "\n"))
				fmt.Fprintf(out, "accept this change: switchboard tools accept %s --hash %s\n\n", c.Name, c.Short)
			}
			fmt.Fprintf(out, "--hash accepts only the change shown; without it, whatever the server offers now is accepted.\n")
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: name, server, tool, hash, pendingHash, accepted, pending, diff, heldSince")
	return cmd
}

func newToolsAcceptCmd(g *globals) *cobra.Command {
	var (
		server string
		all    bool
		hash   string
	)
	cmd := &cobra.Command{
		Use:   "accept [NAME...]",
		Short: "Accept the changed definition of held tools, releasing them",
		Long: `Accepts the changed definition of each named held tool (its catalogue
name, as ` + "`switchboard tools changes`" + ` shows it), of every held tool of --server,
or of every held tool (--all). The acceptance is audited under your name, and
a running ` + "`switchboard serve`" + ` releases the tools within seconds.

A tool that changed again since it was listed is not accepted: list the
changes again and review the new diff.`,
		Example: `  switchboard tools changes
  switchboard tools accept github__create_issue --hash 3f2a9c0d1e4b
  switchboard tools accept --server github`,
		PreRunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 && server == "" && !all {
				return usageErr(errors.New("nothing to accept"), "name held tools, or use --server S or --all; `switchboard tools changes` lists them")
			}
			if hash != "" && len(args) != 1 {
				return usageErr(errors.New("--hash goes with one tool name"), "switchboard tools accept NAME --hash HASH, as `switchboard tools changes` prints it")
			}
			return nil
		},
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			by := "cli"
			if u := g.env.Getenv("USER"); u != "" {
				by = "cli:" + u
			}
			sel := app.PinSelection{Names: args, Server: server, All: all}
			if hash != "" {
				sel.Hashes = map[string]string{args[0]: hash}
			}
			done, err := a.AcceptToolChanges(cmd.Context(), sel, by)
			out := cmd.OutOrStdout()
			for _, c := range done {
				fmt.Fprintf(out, "accepted %s\n", c.Name)
			}
			switch {
			case app.IsNotHeld(err):
				return usageErr(err, "`switchboard tools changes` lists the held tools")
			case app.IsConflict(err):
				return usageErr(err, "the tool changed again: run `switchboard tools changes` and review the new diff")
			case err != nil:
				return err
			}
			if len(done) == 0 {
				fmt.Fprintln(out, "No held tools matched; nothing accepted.")
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&server, "server", "", "accept every held tool of this `server`")
	cmd.Flags().BoolVar(&all, "all", false, "accept every held tool")
	cmd.Flags().StringVar(&hash, "hash", "", "accept only if the tool's change is still the one with this `hash` (as `tools changes` prints it)")
	return cmd
}
