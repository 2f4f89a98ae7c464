package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// toolJSON is one tool as `switchboard tools --json` prints it.
type toolJSON struct {
	Name         string               `json:"name"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *app.ToolAnnotations `json:"annotations,omitempty"`
	Server       string               `json:"server,omitempty"`
	Origin       app.ToolOrigin       `json:"origin"`
}

func newToolsCmd(g *globals) *cobra.Command {
	var (
		asJSON   bool
		server   string
		provider string
		refresh  bool
		request  string
		agent    string
	)
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List every tool in the catalogue: built-in, MCP and OpenAPI",
		Long: `Connects the configured servers and lists every tool under the name models
see it by: built-in tools by their plain name (read_file), MCP and OpenAPI tools
as server__tool. --provider prints the tool list as that provider's API takes
it (openai, anthropic, gemini, ollama), with schemas converted for it.
--rank "REQUEST" shows which tools the manifest for that request would hold
(the best-ranked ones when the catalogue exceeds toolSearch.maxTools, the rest
reached through find_tools), with each tool's score and the words that matched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if provider != "" && !slices.Contains([]string{"openai", "anthropic", "gemini", "ollama"}, provider) {
				return usageErr(fmt.Errorf("unknown provider %q", provider), "--provider takes openai, anthropic, gemini or ollama")
			}
			rankSet := cmd.Flags().Changed("rank")
			if rankSet && (provider != "" || server != "") {
				return usageErr(fmt.Errorf("--rank ranks the whole catalogue"), "drop --provider and --server")
			}
			if agent != "" && !rankSet {
				return usageErr(fmt.Errorf("--agent goes with --rank"), `switchboard tools --rank "REQUEST" --agent NAME`)
			}
			if rankSet && strings.TrimSpace(request) == "" {
				return usageErr(fmt.Errorf("--rank needs a request"), `write it in quotes: switchboard tools --rank "send the report to Bob"`)
			}
			var only []string
			if server != "" && server != "builtin" {
				only = []string{server}
			}
			a, err := g.start(cmd.Context(), only)
			if err != nil {
				return err
			}
			defer a.Close()
			if refresh {
				if err := a.RefreshOpenAPI(cmd.Context()); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", err)
				}
			}
			if rankSet {
				return runRank(cmd.Context(), a, cmd.OutOrStdout(), agent, request, asJSON)
			}
			entries := a.Tools()
			if server != "" {
				if !slices.ContainsFunc(a.Servers(), func(s app.ServerStatus) bool { return s.Name == server }) {
					return usageErr(fmt.Errorf("no server named %q", server), "`switchboard servers` lists the configured servers")
				}
				entries = slices.DeleteFunc(entries, func(e app.ToolEntry) bool { return serverOf(e) != server })
			}
			if held := a.Registry().Held(); len(held) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %d tool(s) held because their server changed their definition (%s); `switchboard tools changes` shows the diffs\n",
					len(held), heldList(held))
			}
			for _, s := range a.Servers() {
				if s.LastError != "" && (server == "" || s.Name == server) && s.State != "ready" {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: server %s is %s: %s\n", s.Name, s.State, oneLine(s.LastError, 200))
				}
			}
			out := cmd.OutOrStdout()
			if provider != "" {
				b, err := a.ProviderTools(provider, entries)
				if err != nil {
					return usageErr(err, "providers: openai, anthropic, gemini, ollama")
				}
				_, err = out.Write(append(b, '\n'))
				return err
			}
			if asJSON {
				list := make([]toolJSON, 0, len(entries))
				for _, e := range entries {
					list = append(list, toolJSON{
						Name: e.Name, Description: e.Info.Description, InputSchema: e.Info.InputSchema,
						OutputSchema: e.Info.OutputSchema, Annotations: e.Info.Annotations,
						Server: e.Origin.Server, Origin: e.Origin,
					})
				}
				return writeJSON(out, list)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tORIGIN\tHINTS\tDESCRIPTION")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, origin(e.Origin), hints(e.Info.Annotations), oneLine(e.Info.Description, 70))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: name, description, inputSchema, annotations, server")
	cmd.Flags().StringVar(&server, "server", "", "only the tools of this `server` (\"builtin\" for the built-in tools)")
	cmd.Flags().StringVar(&provider, "provider", "", "print the tool list in this `provider`'s format: openai, anthropic, gemini, ollama")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "re-read the OpenAPI documents now")
	cmd.Flags().StringVar(&request, "rank", "", "show the manifest this `request` would get, with each tool's score")
	cmd.Flags().StringVar(&agent, "agent", "", "with --rank: the manifest of this `agent` (default: the assistant)")
	cmd.AddCommand(newToolsChangesCmd(g), newToolsAcceptCmd(g))
	return cmd
}

func serverOf(e app.ToolEntry) string {
	if e.Origin.Kind == app.KindBuiltin {
		return "builtin"
	}
	return e.Origin.Server
}

func origin(o app.ToolOrigin) string {
	if o.Kind == app.KindBuiltin {
		return "builtin"
	}
	return string(o.Kind) + ":" + o.Server
}

// hints summarises annotations: read-only, destructive, or "-" when the
// tool declared none (which the approval policy treats as unknown).
func hints(a *app.ToolAnnotations) string {
	if a == nil {
		return "-"
	}
	var h []string
	switch {
	case a.ReadOnly():
		h = append(h, "read-only")
	case a.Destructive():
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if len(h) == 0 {
		return "-"
	}
	return strings.Join(h, ",")
}

func heldList(es []app.ToolEntry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}
