package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

func newConfigCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
	}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and print it with defaults applied and secrets redacted",
		Long: `Loads the configuration exactly as every other command does (defaults, the
file, ${VAR} expansion, environment, flags), lists every problem with its field
path, and prints the effective configuration with secrets shown as REDACTED.
Exits 2 when the configuration is invalid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(config.LoadOptions{Path: g.configPath, Cwd: g.env.Cwd, Getenv: g.env.Getenv})
			if cfg == nil {
				return usageErr(err, loadHint(err, "fix the problems listed above"))
			}
			if g.dataDir != "" {
				cfg.Data = g.dataDir
			}
			format := config.FormatYAML
			if asJSON {
				format = config.FormatJSON
			}
			out := cmd.OutOrStdout()
			if cfg.Source == "" {
				fmt.Fprintln(out, "# no config file found: defaults and environment only")
			}
			if werr := cfg.WriteEffective(out, format); werr != nil {
				return werr
			}
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				return usageErr(err, "fix the problems listed above")
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "config ok")
			return nil
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of YAML")
	cmd.AddCommand(check, newConfigTrustCmd(g))
	return cmd
}
