package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
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
Exits 2 when the configuration is invalid.

When a serve has run with the same data directory, it also lists what a
reload would change against the configuration that serve applied last
(recorded in DATA/config-applied.json at start and at each reload, as one
digest per entry): + added, - removed, ~ changed, and ! settings that apply
only at the next start. Entries added at run time (switchboard servers add)
are part of what serve runs: a reload keeps them, and they are listed as
runtime entries. serve applies a valid edit of its file by itself,
or on SIGHUP.`,
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
				return usageErr(err, "fix the problems listed above; a running serve refuses this edit and keeps its configuration")
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "config ok")
			printPending(cmd.ErrOrStderr(), cfg)
			return nil
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of YAML")
	cmd.AddCommand(check, newConfigTrustCmd(g))
	return cmd
}

// printPending lists what a reload of the serve using cfg's data directory
// would change, or why there is nothing to compare with.
func printPending(w io.Writer, cfg *config.Config) {
	diff, at, err := app.PendingChanges(cfg)
	switch {
	case errors.Is(err, app.ErrNothingApplied):
		fmt.Fprintf(w, "no serve has run with the data directory %s: nothing to compare with\n", cfg.Data)
	case err != nil:
		fmt.Fprintf(w, "cannot tell what a reload would change: %v\n", err)
	case diff.Empty():
		fmt.Fprintf(w, "a reload would change nothing (serve applied this configuration at %s)\n", at.Local().Format("2006-01-02 15:04:05"))
	default:
		fmt.Fprintf(w, "a reload would change, against what serve applied at %s:\n%s\n", at.Local().Format("2006-01-02 15:04:05"), diff)
	}
	if err == nil && len(diff.Runtime) > 0 {
		fmt.Fprintf(w, "runtime entries (in the store, changed with `switchboard servers`), kept by a reload: %s\n", strings.Join(diff.Runtime, ", "))
	}
}
