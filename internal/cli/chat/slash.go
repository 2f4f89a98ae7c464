package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// An MCP server's prompt runs as a slash command named like its tools,
// /server__prompt, with arguments written name=value (quote a value with
// spaces: name="two words"). The prompt's messages become the turn, as in
// the web UI; /prompts lists what the person may run.

// promptSep separates a server's name from its prompt's.
const promptSep = "__"

// errNoOfferings is the answer of a chat whose backend has no prompts or
// resources.
var errNoOfferings = errors.New("this chat has no MCP prompts or resources (no MCP server is configured)")

// promptsMsg carries the prompts, for /prompts (run nil) or for checking
// the arguments of a prompt run (run set).
type promptsMsg struct {
	prompts []Prompt
	err     error
	run     *promptRun
}

// promptRun is a typed /server__prompt line, parsed.
type promptRun struct {
	line string
	name string
	args map[string]string
}

// offerings returns the backend's prompts and resources, if it has them.
func (m *model) offerings() (Offerings, bool) {
	o, ok := m.b.(Offerings)
	return o, ok
}

// listPrompts reads the prompts off the UI goroutine: it asks the servers.
func (m *model) listPrompts() tea.Cmd { return m.fetchPrompts(nil) }

func (m *model) fetchPrompts(run *promptRun) tea.Cmd {
	o, ok := m.offerings()
	if !ok {
		return func() tea.Msg { return promptsMsg{err: errNoOfferings, run: run} }
	}
	ctx := m.ctx
	return func() tea.Msg {
		ps, err := o.Prompts(ctx)
		return promptsMsg{prompts: ps, err: err, run: run}
	}
}

// runPrompt parses a /server__prompt line and checks it against the
// prompt's arguments before running it.
func (m *model) runPrompt(line string) tea.Cmd {
	name, rest, _ := strings.Cut(line, " ")
	args, err := parseArgs(rest)
	if err != nil {
		m.errorNote(fmt.Sprintf("/%s: %s", truncate(oneLine(name), 60), err))
		return nil
	}
	return m.fetchPrompts(&promptRun{line: "/" + line, name: name, args: args})
}

// onPrompts shows the prompts, or runs the prompt that waited for them.
func (m *model) onPrompts(msg promptsMsg) tea.Cmd {
	if msg.err != nil {
		m.errorNote("listing prompts: " + oneLine(msg.err.Error()))
		return nil
	}
	if msg.run == nil {
		m.block(promptsTable(msg.prompts, m.width))
		return nil
	}
	r := msg.run
	i := slices.IndexFunc(msg.prompts, func(p Prompt) bool { return p.Name == r.name })
	if i < 0 {
		m.errorNote(fmt.Sprintf("no prompt /%s that you may run; /prompts lists them", truncate(oneLine(r.name), 60)))
		return nil
	}
	if err := checkArgs(msg.prompts[i], r.args); err != nil {
		m.errorNote(err.Error())
		// Ask for the first missing argument: the line comes back with
		// its name= typed, where tab completes the value.
		if a := firstMissing(msg.prompts[i], r.args); a != "" && m.input.Value() == "" {
			m.input.SetValue(strings.TrimRight(r.line, " ") + " " + a + "=")
		}
		return nil
	}
	if m.turn != nil {
		m.note("an answer is still coming; wait for it or press ctrl+c to cancel it, then run the prompt again (up recalls it)")
		return nil
	}
	m.endAnswer()
	m.add(&entry{kind: entryUser, text: r.line})
	return m.startTurn("Prompt "+r.name, &Additions{Prompt: r.name, Arguments: r.args})
}

// checkArgs says which arguments p lacks or does not know.
func checkArgs(p Prompt, args map[string]string) error {
	var missing, names []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
		if a.Required && args[a.Name] == "" {
			d := a.Name
			if a.Description != "" {
				d += " (" + truncate(oneLine(a.Description), 60) + ")"
			}
			missing = append(missing, d)
		}
	}
	for k := range args {
		if !slices.Contains(names, k) {
			known := "it takes no arguments"
			if len(names) > 0 {
				known = "it takes " + strings.Join(names, ", ")
			}
			return fmt.Errorf("the prompt /%s has no argument %q; %s", p.Name, truncate(k, 40), known)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the prompt /%s needs %s; run it as /%s %s", p.Name, strings.Join(missing, ", "), p.Name, usage(p))
	}
	return nil
}

// firstMissing is the first required argument of p that args lack.
func firstMissing(p Prompt, args map[string]string) string {
	for _, a := range p.Arguments {
		if a.Required && args[a.Name] == "" {
			return a.Name
		}
	}
	return ""
}

// usage is a prompt's arguments as they are typed, optional ones in [].
func usage(p Prompt) string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, a.Name+"=…")
		} else {
			parts = append(parts, "["+a.Name+"=…]")
		}
	}
	return strings.Join(parts, " ")
}

// parseArgs reads name=value words; a value may be quoted with " to hold
// spaces, and \" is a quote inside one.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	words, err := splitWords(s)
	if err != nil {
		return nil, err
	}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not name=value; write each argument as name=value (quote values with spaces)", truncate(w, 40))
		}
		if _, dup := args[k]; dup {
			return nil, fmt.Errorf("the argument %s is given twice", truncate(k, 40))
		}
		args[k] = v
	}
	return args, nil
}

// splitWords splits s at spaces outside double quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	in, quoted, esc := false, false, false
	for _, r := range s {
		switch {
		case esc:
			b.WriteRune(r)
			esc = false
		case r == '\\' && quoted:
			esc = true
		case r == '"':
			quoted = !quoted
			in = true
		case (r == ' ' || r == '\t' || r == '\n') && !quoted:
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if quoted {
		return nil, errors.New("a quote is not closed; end the quoted value with \"")
	}
	if in {
		words = append(words, b.String())
	}
	return words, nil
}

// promptsTable lists the prompts for /prompts.
func promptsTable(ps []Prompt, width int) string {
	if len(ps) == 0 {
		return "No prompts: no MCP server you may use offers any."
	}
	rows := make([][]string, 0, len(ps))
	for _, p := range ps {
		desc, _, _ := strings.Cut(strings.TrimSpace(p.Description), "\n")
		rows = append(rows, []string{"/" + p.Name, usage(p), truncate(desc, 60)})
	}
	return fmt.Sprintf("%d prompts\n", len(ps)) + table([]string{"COMMAND", "ARGUMENTS", "DESCRIPTION"}, rows, width)
}

// completeArg asks the server for values of the argument being typed at
// the end of a /server__prompt line.
func completeArg(ctx context.Context, o Offerings, line string) ([]string, string, error) {
	name, rest, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	words, err := splitWords(rest)
	if err != nil || len(words) == 0 || strings.HasSuffix(rest, " ") {
		return nil, "", err
	}
	last := words[len(words)-1]
	k, v, ok := strings.Cut(last, "=")
	if !ok {
		return nil, "", nil
	}
	others := map[string]string{}
	for _, w := range words[:len(words)-1] {
		if a, b, ok := strings.Cut(w, "="); ok {
			others[a] = b
		}
	}
	vals, err := o.Complete(ctx, CompleteRequest{Prompt: name, Argument: k, Value: v, Context: others})
	return vals, k + "=", err
}
