package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newServersCmd(g *globals) *cobra.Command {
	var asJSON, stderr bool
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Start every configured server and show its state",
		Long: `Connects every configured MCP and OpenAPI server (concurrently) and shows,
for each, its transport, protocol version, state, tool count, sandbox and last
error (SANDBOX is on or off for stdio servers and for the terminal tool of the
built-ins; --json has each sandbox's read and write paths), the read paths
derived from each confined server's command and why; then the MCP roots
each MCP server was offered, and which servers write lines to stdout that are
not JSON-RPC (they are skipped). With --stderr, the last lines each stdio
server wrote to stderr follow.`,
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
			writeServerNotes(cmd.OutOrStdout(), st)
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
	addEntryCmds(g, cmd)
	return cmd
}

// writeServerNotes says which MCP roots each MCP server was offered and
// which servers write lines to stdout that are not JSON-RPC.
func writeServerNotes(w io.Writer, st []app.ServerStatus) {
	var mcp, noisy []app.ServerStatus
	for _, s := range st {
		if s.Kind == app.KindMCP {
			mcp = append(mcp, s)
			if s.NonProtocolLines > 0 {
				noisy = append(noisy, s)
			}
		}
	}
	if len(mcp) == 0 {
		return
	}
	writeSandboxPaths(w, mcp)
	fmt.Fprintln(w, "\nMCP roots offered (none: no roots capability, so the server keeps the directories it was configured with):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range mcp {
		fmt.Fprintf(tw, "  %s\t%s\n", s.Name, rootsNote(s.Roots, s.RootsRequests))
	}
	tw.Flush()
	if len(noisy) > 0 {
		fmt.Fprintln(w, "\nNon-protocol output on stdout (skipped; see the lines marked [stdout] with --stderr):")
		for _, s := range noisy {
			fmt.Fprintf(w, "  %s  %d lines that are not JSON-RPC\n", s.Name, s.NonProtocolLines)
		}
	}
}

// rootsNote describes the roots offered to a server and whether it asked.
func rootsNote(roots []string, asked int64) string {
	if len(roots) == 0 {
		return "none"
	}
	note := strings.Join(roots, ", ")
	if asked > 0 {
		return fmt.Sprintf("%s (asked %d times)", note, asked)
	}
	return note + " (not asked for yet)"
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

// writeSandboxPaths lists, per confined stdio server, the read paths
// derived from its command and why each is there.
func writeSandboxPaths(w io.Writer, st []app.ServerStatus) {
	head := false
	for _, s := range st {
		if len(s.SandboxPaths) == 0 {
			continue
		}
		if !head {
			fmt.Fprintln(w, "\nSandbox paths derived from each server's command (read-only):")
			head = true
		}
		fmt.Fprintf(w, "  %s\n", s.Name)
		for _, l := range s.SandboxPaths {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
