package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newModelsCmd(g *globals) *cobra.Command {
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the configured models and whether each answers",
		Long: `Lists every configured model (from the models section, or the one that
OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST create) and asks
each endpoint, concurrently, whether it answers and knows the model.
TOOLS shows how each model gets its tools: the configured toolMode and,
for auto, what it resolves to and why ("auto -> text (ollama: no "tools"
capability)"), from what the endpoint says about the model (see
docs/PROVIDERS.md, "How toolMode auto decides").
Exits 1 when a model does not answer.`,
		Args: cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			if len(a.Config().Models) == 0 {
				return usageErr(fmt.Errorf("no models configured"),
					"add a models section to the config, or set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST (see docs/PROVIDERS.md)")
			}
			checks := a.CheckModels(cmd.Context(), timeout)
			failed := 0
			for _, c := range checks {
				if !c.OK {
					failed++
				}
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), checks); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tPROVIDER\tMODEL\tSTATUS\tTOOLS")
				for _, c := range checks {
					name := c.Name
					if c.Default {
						name += " (default)"
					}
					status := fmt.Sprintf("ok (%s)", c.Took.Round(time.Millisecond))
					if !c.OK {
						status = "error: " + oneLine(c.Error, 120)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, c.Provider, c.Model, status, toolsColumn(c))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			if failed > 0 {
				return &exitError{code: exitToolError, err: fmt.Errorf("%d of %d models did not answer", failed, len(checks))}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "how long each model may take to answer")
	return cmd
}

// toolsColumn renders how a model gets its tools: "text (configured)", or
// for auto "auto -> native (reason)".
func toolsColumn(c app.ModelCheck) string {
	switch {
	case c.ResolvedToolMode == "":
		return c.ToolMode
	case c.ToolMode == c.ResolvedToolMode:
		return c.ToolMode + " (" + c.ToolModeReason + ")"
	default:
		configured := c.ToolMode
		if configured == "" {
			configured = "auto"
		}
		return configured + " -> " + c.ResolvedToolMode + " (" + oneLine(c.ToolModeReason, 160) + ")"
	}
}
