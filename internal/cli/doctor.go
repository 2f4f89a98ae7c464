package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

func newDoctorCmd(g *globals) *cobra.Command {
	var asJSON bool
	var server string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration and every MCP server step by step, with a fix for each problem",
		Long: `Checks that the configuration is valid and the data directory usable, then,
for each MCP server (concurrently): that its command is on PATH, that it starts
and answers initialize, whether it writes lines to stdout that are not JSON-RPC
(a warning: they are skipped), that it lists its tools and answers ping, and
which MCP roots it was offered; it names the environment variables each stdio
server gets (never their values) and shows its sandbox. It warns when this
system cannot sandbox. Prints how long each step took and how to fix what
failed. Exits 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			// Errors and stderr tails quote URLs and command lines.
			out := redact.Writer(cmd.OutOrStdout(), redact.NewSecrets(cfg.SecretValues()...))
			problems := 0
			src := cfg.Source
			if src == "" {
				src = "none found; defaults and environment only"
			}
			if !asJSON {
				fmt.Fprintf(out, "config: %s  ok\n", src)
			}
			if err := checkDataDir(cfg.Data); err != nil {
				problems++
				if !asJSON {
					fmt.Fprintf(out, "data: %s  FAILED: %v\n  fix: choose a writable directory with --data or SWITCHBOARD_DATA\n", cfg.Data, err)
				}
			} else if !asJSON {
				fmt.Fprintf(out, "data: %s  ok\n", cfg.Data)
			}
			if sp := sandbox.Check(); !asJSON {
				if sp.Available {
					fmt.Fprintf(out, "sandbox: Landlock ABI %d and user namespaces  ok\n", sp.LandlockABI)
				} else {
					fmt.Fprintf(out, "sandbox: unavailable  WARNING: %s\n  fix: run on Linux 5.13+ with Landlock enabled and user namespaces allowed; until then sandboxed servers fail and the terminal runs unconfined (or fails with builtin.terminal.sandbox: required)\n", sp.Reason)
				}
			}
			if !asJSON {
				fmt.Fprintf(out, "terminal: sandbox %s\n", app.TerminalSandbox(cfg))
			}
			a, err := g.newApp(cfg, g.logger(cfg, slog.LevelWarn))
			if err != nil {
				return err
			}
			defer a.Close()
			reports := a.Diagnose(cmd.Context(), onlyServer(server))
			for _, r := range reports {
				if !r.OK {
					problems++
				}
			}
			if asJSON {
				if err := writeJSON(out, reports); err != nil {
					return err
				}
			} else {
				if len(reports) == 0 {
					fmt.Fprintln(out, "\nno MCP servers configured: add them under mcpServers (the Claude Desktop format)")
				}
				for _, r := range reports {
					writeReport(out, r)
				}
			}
			if problems > 0 {
				return &exitError{code: exitToolError, err: fmt.Errorf("%d problem(s) found", problems)}
			}
			if !asJSON {
				fmt.Fprintln(out, "\nall checks passed")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON")
	cmd.Flags().StringVar(&server, "server", "", "check only this `server`")
	return cmd
}

func writeReport(w io.Writer, r *app.ServerReport) {
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	fmt.Fprintf(w, "\n%s (%s)  %s\n", r.Server, r.Transport, status)
	for _, s := range r.Steps {
		mark := "ok  "
		switch {
		case s.Skipped:
			mark = "skip"
		case !s.OK:
			mark = "FAIL"
		case s.Warning != "":
			mark = "warn"
		}
		line := fmt.Sprintf("  [%s] %-28s %8s", mark, s.Name, s.Duration.Round(time.Millisecond))
		if s.Detail != "" {
			line += "  " + oneLine(s.Detail, 80)
		}
		fmt.Fprintln(w, line)
		if s.Err != "" {
			fmt.Fprintf(w, "         error: %s\n", s.Err)
		}
		if s.Warning != "" {
			fmt.Fprintf(w, "         warning: %s\n", s.Warning)
		}
		if s.Hint != "" {
			fmt.Fprintf(w, "         fix: %s\n", s.Hint)
		}
	}
	if r.ServerName != "" {
		fmt.Fprintf(w, "  server: %s %s, protocol %s, %d tools\n", r.ServerName, r.ServerVersion, r.ProtocolVersion, len(r.Tools))
	}
	if r.Sandbox != "" {
		fmt.Fprintf(w, "  sandbox: %s\n", r.Sandbox)
		for _, l := range r.SandboxPaths {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if len(r.Env) > 0 {
		fmt.Fprintf(w, "  environment: %s\n", strings.Join(r.Env, " "))
	}
	if len(r.Roots) == 0 {
		fmt.Fprintln(w, "  roots offered: none (no roots capability, so the server keeps the directories it was configured with)")
	} else {
		fmt.Fprintf(w, "  roots offered: %s\n", rootsNote(r.Roots, r.RootsRequests))
	}
	if r.NonProtocolLines > 0 {
		fmt.Fprintf(w, "  stdout: %d lines that are not JSON-RPC were skipped (marked [stdout] in the stderr tail)\n", r.NonProtocolLines)
	}
	if (!r.OK || r.NonProtocolLines > 0) && len(r.Stderr) > 0 {
		tail := r.Stderr
		if len(tail) > 10 {
			tail = tail[len(tail)-10:]
		}
		fmt.Fprintf(w, "  stderr (last %d lines):\n    %s\n", len(tail), strings.Join(tail, "\n    "))
	}
}

// checkDataDir reports whether dir exists and is writable, or can be made.
func checkDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(filepath.Clean(name))
}
