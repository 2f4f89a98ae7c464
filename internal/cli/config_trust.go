package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// newConfigTrustCmd accepts the config file discovery finds (or --config
// names) after the person has seen what it runs: a discovered file that
// is new or changed since tools could write beside it is refused until
// then (see config.Trust).
func newConfigTrustCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "trust",
		Short: "Accept the config file in this directory after checking it",
		Long: `Records the content (SHA-256) of the config file discovery finds
(switchboard.yaml in the working directory, or config.yaml under
$XDG_CONFIG_HOME/switchboard), or the one --config names, as accepted by you.

Switchboard refuses to load a discovered config file that was created or
changed after it let tools write in that directory, because a tool (a
sandboxed terminal command, an MCP server) could have written it to start a
program of its choosing. Read the file, check the commands it runs (printed
below), then run this once; any later change needs it again. A file named
with --config is always loaded.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var data []byte
			cfg, err := config.Load(config.LoadOptions{
				Path: g.configPath, Cwd: g.env.Cwd, Getenv: g.env.Getenv, SkipTrust: true,
				// Keep the bytes parsed, so the record is of what was shown.
				ReadFile: func(p string) ([]byte, error) {
					b, err := os.ReadFile(p)
					data = b
					return b, err
				},
			})
			if cfg == nil {
				return usageErr(err, "fix the problems listed above, then run config trust again")
			}
			if cfg.Source == "" {
				return usageErr(errors.New("no config file found: nothing to trust"), "write switchboard.yaml in this directory or name one with --config")
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "config file: %s\n", cfg.Source)
			names := slices.Sorted(maps.Keys(cfg.MCPServers))
			for _, n := range names {
				s := cfg.MCPServers[n]
				if s.Disabled || s.Transport() != config.TransportStdio {
					continue
				}
				sb := cfg.Sandbox
				if s.Sandbox != nil {
					sb = *s.Sandbox
				}
				confined := "sandboxed"
				if !sb.Enabled {
					confined = "NOT sandboxed"
				}
				fmt.Fprintf(out, "  runs %s (%s): %s\n", n, confined, strings.Join(append([]string{s.Command}, s.Args...), " "))
			}
			if g.dataDir != "" {
				cfg.Data = g.dataDir // the records go where this data directory is too
			}
			if err := cfg.Trust(cfg.Source, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "trusted %s as it is now; a later change needs `switchboard config trust` again\n", cfg.Source)
			return nil
		},
	}
}
