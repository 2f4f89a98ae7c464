package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os/user"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// entryFlags build an entry from flags, or take it whole as JSON.
type entryFlags struct {
	openapi  bool
	model    bool
	raw      string
	typ      string
	command  string
	args     []string
	env      []string
	url      string
	headers  []string
	bearer   string
	spec     string
	sandbox  bool
	disabled bool
}

func (f *entryFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.openapi, "openapi", false, "an OpenAPI service (openapiServers) instead of an MCP server")
	fl.BoolVar(&f.model, "model", false, `a model (models), given with --json: {"provider":"openai","model":"gpt-4o-mini","apiKey":"..."}`)
	fl.StringVar(&f.raw, "json", "", "the whole entry as JSON, as in the config file (- reads it from stdin); the other entry flags are then not allowed")
	fl.StringVar(&f.typ, "type", "", "MCP transport: stdio, http or sse (default: stdio with --command, tried with --url)")
	fl.StringVar(&f.command, "command", "", "the program of a stdio MCP server")
	fl.StringArrayVar(&f.args, "arg", nil, "an argument of the program (repeat)")
	fl.StringArrayVar(&f.env, "env", nil, "NAME=VALUE for the program's environment (repeat; stored encrypted, never shown)")
	fl.StringVar(&f.url, "url", "", "the endpoint of a remote MCP server, or the base URL of an OpenAPI service")
	fl.StringArrayVar(&f.headers, "header", nil, "NAME=VALUE sent with each request (repeat; stored encrypted, never shown)")
	fl.StringVar(&f.bearer, "bearer", "", "bearer token of an OpenAPI service (stored encrypted, never shown)")
	fl.StringVar(&f.spec, "spec", "", "the OpenAPI document (URL or path) of an OpenAPI service")
	fl.BoolVar(&f.sandbox, "sandbox", false, "confine a stdio server (see README, Sandbox)")
	fl.BoolVar(&f.disabled, "disabled", false, "store it disabled")
}

func (f *entryFlags) kind() string {
	if f.model {
		return "model"
	}
	if f.openapi {
		return "openapi"
	}
	return "server"
}

// body returns the entry as JSON.
func (f *entryFlags) body(cmd *cobra.Command) ([]byte, error) {
	if f.raw != "" {
		for _, n := range []string{"type", "command", "arg", "env", "url", "header", "bearer", "spec", "sandbox", "disabled"} {
			if cmd.Flags().Changed(n) {
				return nil, fmt.Errorf("--json is the whole entry; put %s in it rather than --%s", n, n)
			}
		}
		if f.raw == "-" {
			return io.ReadAll(cmd.InOrStdin())
		}
		return []byte(f.raw), nil
	}
	if f.model {
		return nil, fmt.Errorf("give a model with --json, as in the config file's models")
	}
	m := map[string]any{}
	set := func(k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	pairs := func(flag string, kv []string) (map[string]string, error) {
		out := map[string]string{}
		for _, p := range kv {
			k, v, ok := strings.Cut(p, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--%s %q: write NAME=VALUE", flag, p)
			}
			out[k] = v
		}
		return out, nil
	}
	env, err := pairs("env", f.env)
	if err != nil {
		return nil, err
	}
	headers, err := pairs("header", f.headers)
	if err != nil {
		return nil, err
	}
	set("type", f.typ, f.typ != "")
	set("command", f.command, f.command != "")
	set("args", f.args, len(f.args) > 0)
	set("env", env, len(env) > 0)
	set("url", f.url, f.url != "")
	set("headers", headers, len(headers) > 0)
	set("bearer", f.bearer, f.bearer != "")
	set("spec", f.spec, f.spec != "")
	set("sandbox", true, f.sandbox)
	set("disabled", true, f.disabled)
	return json.Marshal(m)
}

// changedBy names the person running the command in the audit trail.
func changedBy() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}

// addEntryCmds adds the subcommands of `servers` that manage the servers
// and services added at run time.
func addEntryCmds(g *globals, servers *cobra.Command) {
	for _, create := range []bool{true, false} {
		var f entryFlags
		use, short := "add NAME", "Add an MCP server or OpenAPI service to the store; every serve on the database applies it"
		if !create {
			use, short = "set NAME", "Replace a server or service added with add (the whole entry, secrets included)"
		}
		c := &cobra.Command{
			Use: use, Short: short, Args: cobra.ExactArgs(1),
			Long: short + `.

Entries added at run time live in the database, not the file: a running
"switchboard serve" (every replica on PostgreSQL) applies them within
seconds. A name the config file has is refused: change it in the file.
Env and header values, bearer tokens and API keys are stored encrypted
with SWITCHBOARD_SECRET_KEY (or the key file in the data directory) and
never shown again; ${VAR} is not expanded. Examples:
  switchboard servers add files --command npx --arg -y --arg @modelcontextprotocol/server-filesystem --arg /srv/docs
  switchboard servers add search --url https://mcp.example.com/mcp --header "Authorization=Bearer $TOKEN"
  switchboard servers add pets --openapi --url http://127.0.0.1:8080 --bearer "$PETS_TOKEN"
  switchboard servers add fast --model --json '{"provider":"openai","model":"gpt-4o-mini","apiKey":"sk-..."}'`,
			RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
				body, err := f.body(cmd)
				if err != nil {
					return usageErr(err, "")
				}
				e, err := a.PutConfigEntry(cmd.Context(), changedBy(), f.kind(), args[0], body, create)
				if err != nil {
					return usageErr(err, "")
				}
				verb := "added"
				if !create {
					verb = "replaced"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s %s %s (version %d); running services apply it within seconds\n", e.Kind, e.Name, verb, e.Version)
				return nil
			}),
		}
		f.register(c)
		servers.AddCommand(c)
	}

	var openapi, model bool
	rm := &cobra.Command{
		Use: "rm NAME", Short: "Remove a server, service or model added at run time", Args: cobra.ExactArgs(1),
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
			kind := kindOf(openapi)
			if model {
				kind = "model"
			}
			if err := a.RemoveConfigEntry(cmd.Context(), changedBy(), kind, args[0]); err != nil {
				return usageErr(err, "")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s %s removed\n", kind, args[0])
			return nil
		}),
	}
	rm.Flags().BoolVar(&openapi, "openapi", false, "an OpenAPI service")
	rm.Flags().BoolVar(&model, "model", false, "a model")
	servers.AddCommand(rm)
	for _, disabled := range []bool{false, true} {
		var openapi bool
		use := "enable NAME"
		if disabled {
			use = "disable NAME"
		}
		c := &cobra.Command{
			Use: use, Short: strings.ToUpper(use[:1]) + use[1:strings.Index(use, " ")] + " a server or service added at run time", Args: cobra.ExactArgs(1),
			RunE: g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
				e, err := a.SetConfigEntryDisabled(cmd.Context(), changedBy(), kindOf(openapi), args[0], disabled)
				if err != nil {
					return usageErr(err, "")
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s %s %sd\n", e.Kind, e.Name, use[:strings.Index(use, " ")])
				return nil
			}),
		}
		c.Flags().BoolVar(&openapi, "openapi", false, "an OpenAPI service")
		servers.AddCommand(c)
	}
	var asJSON bool
	entries := &cobra.Command{
		Use: "entries", Short: "List the servers and services: from the file and added at run time (secrets shown as (set))", Args: cobra.NoArgs,
		RunE: g.withApp(func(cmd *cobra.Command, a *app.App, _ []string) error {
			es, err := a.ConfigEntries(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), es)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tNAME\tSOURCE\tSTATE\tBY\tENTRY")
			for _, e := range es {
				state := "enabled"
				if e.Disabled {
					state = "disabled"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Kind, e.Name, e.Source, state, dash(e.UpdatedBy), oneLine(string(e.Body), 100))
			}
			return tw.Flush()
		}),
	}
	entries.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	servers.AddCommand(entries)
}

func kindOf(openapi bool) string {
	if openapi {
		return "openapi"
	}
	return "server"
}
