package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newAgentsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List, create and change named agents and the tool servers they may use",
		Long: `Named agents have their own model, prompt and tool servers; write @name in a
chat to hand a message to one. Agents from the config are rewritten from it
when serve starts; agents created here persist. Changes apply on the agent's next
turn, with no restart.`,
	}
	// withStore adds the hints of agent commands to the store's errors.
	withStore := func(run func(cmd *cobra.Command, a *app.App, args []string) error) func(*cobra.Command, []string) error {
		return g.withStore(func(cmd *cobra.Command, a *app.App, args []string) error {
			err := run(cmd, a, args)
			switch {
			case app.IsNotFound(err):
				return usageErr(err, "`switchboard agents list` shows the agents")
			case app.IsRefused(err):
				return usageErr(err, "")
			}
			return err
		})
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List the agents",
		Args:  cobra.NoArgs,
		RunE: withStore(func(cmd *cobra.Command, a *app.App, _ []string) error {
			as, err := a.Agents(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMODEL\tSERVERS\tSOURCE\tDESCRIPTION")
			for _, ag := range as {
				servers := "(all)"
				if ag.Servers != nil {
					servers = dash(strings.Join(ag.Servers, ","))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ag.Name, dash(ag.Model), servers, ag.Source, oneLine(ag.Description, 60))
			}
			return tw.Flush()
		}),
	}

	var add app.Agent
	var servers []string
	create := &cobra.Command{
		Use:   "add NAME",
		Short: "Create an agent",
		Args:  cobra.ExactArgs(1),
		RunE: withStore(func(cmd *cobra.Command, a *app.App, args []string) error {
			add.Name = args[0]
			if cmd.Flags().Changed("servers") {
				add.Servers = append([]string{}, servers...)
			}
			_, err := a.AddAgent(cmd.Context(), add)
			return err
		}),
	}
	f := create.Flags()
	f.StringVar(&add.Model, "model", "", "configured `model` (default: the default model)")
	f.StringVar(&add.Prompt, "prompt", "", "system `prompt`")
	f.StringVar(&add.Description, "description", "", "what the agent is for")
	f.StringVar(&add.Router, "router", "auto", "router pre-check: off, auto or always")
	f.StringSliceVar(&servers, "servers", nil, "tool `servers` the agent may use (default: all; empty for none)")

	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Delete an agent",
		Args:  cobra.ExactArgs(1),
		RunE: withStore(func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.DeleteAgent(cmd.Context(), args[0])
		}),
	}
	assign := &cobra.Command{
		Use:   "assign AGENT SERVER",
		Short: "Let an agent use a server's tools (\"give bob email access\")",
		Args:  cobra.ExactArgs(2),
		RunE: withStore(func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.AssignServer(cmd.Context(), args[0], args[1])
		}),
	}
	remove := &cobra.Command{
		Use:   "remove AGENT SERVER",
		Short: "Take a server's tools away from an agent",
		Args:  cobra.ExactArgs(2),
		RunE: withStore(func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.RemoveServer(cmd.Context(), args[0], args[1])
		}),
	}
	cmd.AddCommand(list, create, rm, assign, remove)
	return cmd
}
