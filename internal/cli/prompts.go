package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// promptListing is one server's entry of `prompts --json`.
type promptListing struct {
	Server  string       `json:"server"`
	Prompts []app.Prompt `json:"prompts"`
	Error   string       `json:"error,omitempty"`
}

func newPromptsCmd(g *globals) *cobra.Command {
	cmd, asJSON := listingCmd(g, "prompts", "List the prompts the MCP servers offer", "SERVER\tPROMPT\tARGUMENTS\tDESCRIPTION",
		func(cmd *cobra.Command, a *app.App, s string, w io.Writer) (promptListing, error) {
			ps, err := a.Prompts(cmd.Context(), s)
			l := promptListing{Server: s, Prompts: ps}
			if err != nil {
				l.Error = err.Error()
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %v\n", s, err)
			}
			for _, p := range ps {
				var args []string
				for _, a := range p.Arguments {
					n := a.Name
					if a.Required {
						n += "*"
					}
					args = append(args, n)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s, p.Name, dash(strings.Join(args, ",")), oneLine(p.Description, 60))
			}
			return l, nil
		})

	get := &cobra.Command{
		Use:   "get SERVER PROMPT [NAME=VALUE...]",
		Short: "Expand one prompt with its arguments and print the messages",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			pargs := map[string]string{}
			for _, kv := range args[2:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usageErr(fmt.Errorf("argument %q is not NAME=VALUE", kv), "")
				}
				pargs[k] = v
			}
			return g.withServer(cmd.Context(), args[0], func(a *app.App) error {
				res, err := a.GetPrompt(cmd.Context(), args[0], args[1], pargs)
				if err != nil {
					return usageErr(err, "`switchboard prompts --server "+args[0]+"` lists its prompts and arguments")
				}
				if *asJSON {
					return writeJSON(cmd.OutOrStdout(), res)
				}
				for _, m := range res.Messages {
					fmt.Fprintf(cmd.OutOrStdout(), "[%s] ", m.Role)
					writeResult(cmd.OutOrStdout(), &app.Result{Content: []app.Content{m.Content}})
				}
				return nil
			})
		},
	}
	get.Flags().BoolVar(asJSON, "json", false, "print JSON")
	cmd.AddCommand(get)
	return cmd
}
