package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/version"
)

// Env is the process environment a command runs in. Tests fill it with
// buffers and a fake getenv so they never touch the real process state.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads environment variables; nil means none are set.
	Getenv func(string) string
	// Cwd is the working directory; "" means the process's.
	Cwd string
}

// Exit codes.
const (
	exitOK        = 0
	exitToolError = 1
	exitUsage     = 2
)

// exitError carries an exit code and an optional hint for the user.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr is an error in how the command was invoked or configured (exit 2).
func usageErr(err error, hint string) error { return &exitError{code: exitUsage, err: err, hint: hint} }

// Run runs the command line in env and returns the process exit code.
func Run(ctx context.Context, env *Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			env.Cwd = wd
		}
	}
	g := &globals{env: env}
	root := newRoot(g)
	root.SetArgs(env.Args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(env.Stderr, "switchboard: %v\n", ee.err)
		}
		if ee.hint != "" {
			fmt.Fprintf(env.Stderr, "hint: %s\n", ee.hint)
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, wrong arguments) are usage errors.
	fmt.Fprintf(env.Stderr, "switchboard: %v\n", err)
	fmt.Fprintf(env.Stderr, "hint: run '%s --help'\n", commandPath(root, env.Args))
	return exitUsage
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Connect language models to tools: an MCP host, agent runtime and MCP gateway",
		Long: `Switchboard starts and supervises your MCP servers, gathers their tools with
built-in tools and OpenAPI services into one catalogue, and lets you list and
call every tool.

Configuration is read from --config, else ./switchboard.yaml|yml|json, else
$XDG_CONFIG_HOME/switchboard/config.*. Its mcpServers section is the Claude
Desktop format, so an existing file can be pasted.`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		CompletionOptions: cobra.CompletionOptions{
			HiddenDefaultCmd: true,
		},
	}
	g.register(root.PersistentFlags())
	root.AddCommand(
		newConfigCmd(g),
		newServersCmd(g),
		newToolsCmd(g),
		newCallCmd(g),
		newChatCmd(g),
		newMCPCmd(g),
		newUsersCmd(g),
		newConnectionsCmd(g),
		newGrantsCmd(g),
		newAgentsCmd(g),
		newServeCmd(g),
		newModelsCmd(g),
		newResourcesCmd(g),
		newPromptsCmd(g),
		newDoctorCmd(g),
		newAuditCmd(g),
		newVersionCmd(),
	)
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "switchboard", version.String())
			return nil
		},
	}
}

// commandPath names the subcommand the user tried, for the help hint.
func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil {
		return root.CommandPath()
	}
	return cmd.CommandPath()
}
