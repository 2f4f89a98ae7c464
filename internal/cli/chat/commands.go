package chat

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// command is a slash command typed at the prompt.
type command int

const (
	cmdNone    command = iota // not a command: a message for the agent
	cmdTools                  // /tools
	cmdServers                // /servers
	cmdAgents                 // /agents
	cmdNew                    // /new
	cmdQuit                   // /quit (also /exit)
	cmdHelp                   // /help
	cmdModel                  // /model [name]
	cmdPrompts                // /prompts
	cmdPrompt                 // /server__prompt arg=value ... (slash.go)
	cmdUnknown                // a slash word that is none of these
)

// parseInput says whether input is a command. A line starting with "//"
// is a message that starts with "/", so a path can be asked about.
func parseInput(input string) (command, string) {
	s := strings.TrimSpace(input)
	if !strings.HasPrefix(s, "/") {
		return cmdNone, s
	}
	if strings.HasPrefix(s, "//") {
		return cmdNone, s[1:]
	}
	word, rest, _ := strings.Cut(s[1:], " ")
	switch strings.ToLower(word) {
	case "model", "models":
		return cmdModel, strings.TrimSpace(rest)
	case "tools":
		return cmdTools, ""
	case "servers":
		return cmdServers, ""
	case "agents":
		return cmdAgents, ""
	case "new":
		return cmdNew, ""
	case "quit", "exit", "q":
		return cmdQuit, ""
	case "help", "?":
		return cmdHelp, ""
	case "prompts":
		return cmdPrompts, ""
	}
	if strings.Contains(word, promptSep) {
		return cmdPrompt, s[1:]
	}
	return cmdUnknown, truncate(oneLine(word), 40)
}

const helpText = `/tools     list the tools the agents may use
/servers   list the tool servers and their state
/agents    list the named agents
/model     list the models you may use; /model NAME chooses one
/new       start a new conversation
/prompts   list the MCP servers' prompts; run one as /server__prompt arg=value ...
@text      tab completes a resource to attach to the message (@switchboard://...)
/quit      leave (ctrl+c twice does too)
//text     send a message that starts with "/"
enter sends, alt+enter starts a new line, up recalls an earlier message,
pgup/pgdown scroll, ctrl+o shows or hides the model's summaries of
earlier turns, ctrl+c cancels a running answer.`

// table lays rows out in columns and cuts each line to width.
func table(header []string, rows [][]string, width int) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		for i := range r {
			r[i] = oneLine(r[i])
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	lines[0] = lipgloss.NewStyle().Bold(true).Render(lines[0])
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], max(width, 20), "…")
	}
	return strings.Join(lines, "\n")
}

// toolsTable lists the catalogue for /tools.
func toolsTable(es []tools.Entry, width int) string {
	if len(es) == 0 {
		return "No tools are available: no tool server is ready. See /servers."
	}
	rows := make([][]string, 0, len(es))
	for _, e := range es {
		origin := string(e.Origin.Kind)
		if e.Origin.Server != "" {
			origin += ":" + e.Origin.Server
		}
		desc, _, _ := strings.Cut(strings.TrimSpace(e.Info.Description), "\n")
		rows = append(rows, []string{e.Name, origin, hints(e.Info.Annotations), truncate(desc, 80)})
	}
	return fmt.Sprintf("%d tools\n", len(es)) + table([]string{"NAME", "ORIGIN", "HINTS", "DESCRIPTION"}, rows, width)
}

// hints summarises a tool's annotations. A tool that declares none is
// destructive, as MCP's defaults say and the approval policy assumes.
func hints(a *tools.Annotations) string {
	switch {
	case a.ReadOnly():
		return "read-only"
	case a != nil && a.DestructiveHint != nil && !*a.DestructiveHint:
		return "writes"
	}
	return "destructive"
}

// serversTable lists the servers for /servers.
func serversTable(ss []ServerLine, width int) string {
	if len(ss) == 0 {
		return "No tool servers are configured."
	}
	rows := make([][]string, 0, len(ss))
	for _, s := range ss {
		rows = append(rows, []string{s.Name, s.Kind, s.State, fmt.Sprint(s.Tools), truncate(s.LastError, 80)})
	}
	return table([]string{"NAME", "KIND", "STATE", "TOOLS", "LAST ERROR"}, rows, width)
}

// agentsTable lists the named agents for /agents.
func agentsTable(as []store.Agent, width int) string {
	if len(as) == 0 {
		return "No named agents. The assistant answers; add agents in the config or ask it to create one."
	}
	rows := make([][]string, 0, len(as))
	for _, a := range as {
		model := a.Model
		if model == "" {
			model = "(default)"
		}
		servers := "(all)"
		if a.Servers != nil {
			servers = strings.Join(a.Servers, ",")
			if servers == "" {
				servers = "(none)"
			}
		}
		rows = append(rows, []string{"@" + a.Name, model, servers, truncate(a.Description, 60)})
	}
	return table([]string{"AGENT", "MODEL", "SERVERS", "DESCRIPTION"}, rows, width)
}
