package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newServersCmd(g *globals) *cobra.Command {
	var asJSON, stderr bool
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Start every configured server and show its state",
		Long: `Connects every configured MCP and OpenAPI server (concurrently) and shows,
for each, its transport, protocol version, state, tool count, sandbox and last
error (SANDBOX is on or off for stdio servers and for the terminal tool of the
built-ins; --json has each sandbox's read and write paths). With --stderr, the
last lines each stdio server wrote to stderr follow.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := g.start(cmd.Context(), nil)
			if err != nil {
				return err
			}
			defer a.Close()
			st := a.Servers()
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tTRANSPORT\tPROTOCOL\tSTATE\tTOOLS\tSANDBOX\tLAST ERROR")
			for _, s := range st {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Name, s.Kind, dash(s.Transport),
					dash(s.ProtocolVersion), s.State, s.Tools, sandboxWord(s.Sandbox), dash(oneLine(s.LastError, 100)))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if stderr {
				for _, s := range st {
					if len(s.Stderr) == 0 {
						continue
					}
					fmt.Fprintf(cmd.OutOrStdout(), "\n--- %s stderr (last %d lines)\n%s\n", s.Name, len(s.Stderr), strings.Join(s.Stderr, "\n"))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&stderr, "stderr", false, "also print the stderr tail of each stdio server")
	return cmd
}

// sandboxWord shortens a sandbox description for the table.
func sandboxWord(s string) string {
	s = strings.TrimPrefix(s, "terminal: ")
	switch {
	case s == "":
		return "-"
	case strings.HasPrefix(s, "read "):
		if strings.HasSuffix(s, "network on") {
			return "on+net"
		}
		return "on"
	case strings.HasPrefix(s, "required"):
		return "unavailable"
	}
	return "off"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine returns the first line of s, cut to n runes.
func oneLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}
