package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

func newCallCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON_ARGS]",
		Short: "Call one tool and print its result",
		Long: `Calls TOOL (a name from 'switchboard tools') with JSON_ARGS, a JSON object
('-' reads it from stdin; omitted means {}). For a server__tool name only that
server is started. Progress reports go to stderr. The call is recorded in the
audit trail (user local, agent cli) and follows the approval policy: a tool
the policy denies is refused; one it asks about runs, since you typed it.

Exit status: 0 on success, 1 when the tool reports an error (its text is
printed), 2 on usage, configuration or connection errors.`,
		Example: `  switchboard call calculator '{"expression": "2^10"}'
  switchboard call files__read_text_file '{"path": "README.md"}'
  echo '{"path": "."}' | switchboard call list_dir -`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			raw, err := callArgs(args[1:], cmd.InOrStdin())
			if err != nil {
				return usageErr(err, `JSON_ARGS must be a JSON object, e.g. '{"path": "README.md"}'`)
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			var only []string
			if srv, _, ok := strings.Cut(name, "__"); ok {
				if _, mcp := cfg.MCPServers[srv]; mcp {
					only = []string{srv}
				} else if _, oa := cfg.OpenAPIServers[srv]; oa {
					only = []string{srv}
				}
			} else if slices.Contains(app.BuiltinNames(), name) {
				only = []string{} // built-ins need no server
			}
			a, err := g.start(cmd.Context(), only)
			if err != nil {
				return err
			}
			defer a.Close()

			stderr := cmd.ErrOrStderr()
			res, err := a.CallLocal(cmd.Context(), name, &app.CallRequest{
				Arguments: raw,
				Progress: func(p app.Progress) {
					fmt.Fprintln(stderr, progressLine(p))
				},
			})
			var refused *app.Refusal
			switch {
			case app.IsHeld(err):
				return usageErr(err, "") // the hold's message says how to accept the change
			case errors.As(err, &refused):
				return usageErr(err, "the approvals section of the configuration decides which tools may run")
			case app.IsUnknownTool(err):
				return usageErr(err, unknownToolHint(name, a.Tools()))
			case app.IsUnavailable(err):
				return usageErr(err, "`switchboard servers` shows why the server is down")
			case err != nil:
				return usageErr(err, "")
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, res); err != nil {
					return err
				}
			} else if !res.IsError {
				writeResult(out, res)
			}
			if res.IsError {
				if !asJSON {
					writeResult(stderr, res)
				}
				return &exitError{code: exitToolError, err: errors.New("")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON (content blocks, structured content, isError)")
	return cmd
}

// callArgs reads the JSON_ARGS argument: absent means {}, "-" means stdin.
func callArgs(args []string, stdin io.Reader) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	b := []byte(args[0])
	if args[0] == "-" {
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, 64<<20)); err != nil {
			return nil, fmt.Errorf("reading arguments from stdin: %w", err)
		}
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return json.RawMessage(`{}`), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, errors.New("arguments are null, not a JSON object")
	}
	return json.RawMessage(b), nil
}

// writeResult prints a result for a person: text as is, other blocks as a
// one-line summary, structured content when there is no text.
func writeResult(w io.Writer, r *app.Result) {
	hasText := false
	for _, c := range r.Content {
		switch c.Type {
		case app.ContentText:
			hasText = true
			fmt.Fprintln(w, strings.TrimRight(c.Text, "\n"))
		case app.ContentImage, app.ContentAudio:
			fmt.Fprintf(w, "[%s %s, %d bytes]\n", c.Type, c.MIMEType, len(c.Data))
		case app.ContentResource:
			fmt.Fprintf(w, "[resource %s %s]\n", c.URI, c.MIMEType)
			if c.Text != "" {
				hasText = true
				fmt.Fprintln(w, strings.TrimRight(c.Text, "\n"))
			}
		case app.ContentResourceLink:
			fmt.Fprintf(w, "[resource link %s %s]\n", c.URI, c.Name)
		}
	}
	if !hasText && len(r.Structured) > 0 {
		var buf bytes.Buffer
		if json.Indent(&buf, r.Structured, "", "  ") == nil {
			fmt.Fprintln(w, buf.String())
		}
	}
}

func progressLine(p app.Progress) string {
	s := fmt.Sprintf("progress: %g", p.Progress)
	if p.Total > 0 {
		s += fmt.Sprintf("/%g", p.Total)
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// unknownToolHint suggests tools whose names contain the one asked for.
func unknownToolHint(name string, entries []app.ToolEntry) string {
	var near []string
	_, short, _ := strings.Cut(name, "__")
	for _, e := range entries {
		if strings.Contains(e.Name, short) || strings.Contains(short, e.Origin.Name) {
			near = append(near, e.Name)
		}
	}
	if len(near) > 0 && len(near) <= 5 {
		return "did you mean " + strings.Join(near, ", ") + "? `switchboard tools` lists every tool"
	}
	return "`switchboard tools` lists every tool"
}
