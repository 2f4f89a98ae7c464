package chat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
)

// A resource is attached by writing @ and its URI in the message; tab
// completes the URI from what follows @ (any part of the URI or the
// resource's name). At the end of a /server__prompt line, tab completes
// the argument being typed with the values the server offers
// (completion/complete).

// attachPrefix starts a word that attaches a resource.
const attachPrefix = "@" + "switchboard://"

// maxListed bounds the candidates a completion shows.
const maxListed = 20

// completionMsg carries the candidates for the word at the end of the
// input as it was (before) when tab was pressed.
type completionMsg struct {
	before string
	// head is before without the word completed; each of values replaces
	// that word.
	head   string
	word   string
	values []string
	err    error
	what   string
}

// expand adds what the person added to the turn to req, through the
// backend's prompts and resources.
func expand(ctx context.Context, b Backend, req *agent.Request, add *Additions) error {
	if add.empty() {
		return nil
	}
	o, ok := b.(Offerings)
	if !ok {
		return errNoOfferings
	}
	return o.Expand(ctx, req, add)
}

// attachments are the resources text attaches (its @switchboard://
// words), nil for none; each is noted in the transcript.
func (m *model) attachments(text string) *Additions {
	var uris []string
	for _, w := range strings.Fields(text) {
		if strings.HasPrefix(w, attachPrefix) && !slices.Contains(uris, w[1:]) {
			uris = append(uris, w[1:])
		}
	}
	if len(uris) == 0 {
		return nil
	}
	m.note("attached " + strings.Join(uris, ", "))
	return &Additions{URIs: uris}
}

// complete is tab: it completes the resource after @, or the prompt
// argument, at the end of the input.
func (m *model) complete() tea.Cmd {
	v := m.input.Value()
	i := strings.LastIndexAny(v, " \t\n")
	head, word := v[:i+1], v[i+1:]
	argLine := strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && strings.Contains(v, "=") && i >= 0 &&
		strings.Contains(strings.Fields(v)[0], promptSep)
	if !strings.HasPrefix(word, "@") && !argLine {
		return nil
	}
	o, ok := m.offerings()
	if !ok {
		m.errorNote(errNoOfferings.Error())
		return nil
	}
	ctx := m.ctx
	if strings.HasPrefix(word, "@") {
		q := strings.ToLower(word[1:])
		return func() tea.Msg {
			rs, err := o.Resources(ctx)
			var vals []string
			for _, r := range rs {
				if strings.Contains(strings.ToLower(r.URI), q) || strings.Contains(strings.ToLower(r.Name), q) {
					vals = append(vals, "@"+r.URI)
				}
			}
			return completionMsg{before: v, head: head, word: word, values: vals, err: err, what: "resource matches " + word}
		}
	}
	return func() tea.Msg {
		vals, key, err := completeArg(ctx, o, v)
		for j, s := range vals {
			if strings.ContainsAny(s, " \t\"") {
				s = `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
			}
			vals[j] = key + s
		}
		return completionMsg{before: v, head: head, word: word, values: vals, err: err, what: "value is offered for " + word}
	}
}

// onCompletion puts the one candidate in place of the word, or their
// common beginning and a list of them.
func (m *model) onCompletion(msg completionMsg) {
	if m.input.Value() != msg.before {
		return // typed on meanwhile
	}
	switch {
	case msg.err != nil:
		m.errorNote("completing: " + oneLine(msg.err.Error()))
	case len(msg.values) == 0:
		m.note("no " + truncate(oneLine(msg.what), 80))
	case len(msg.values) == 1:
		m.input.SetValue(msg.head + msg.values[0] + " ")
	default:
		if p := commonPrefix(msg.values); len(p) > len(msg.word) && strings.HasPrefix(p, msg.word) {
			m.input.SetValue(msg.head + p)
		}
		shown := msg.values[:min(len(msg.values), maxListed)]
		s := strings.Join(shown, "\n")
		if len(msg.values) > maxListed {
			s += fmt.Sprintf("\n… and %d more; type more of it", len(msg.values)-maxListed)
		}
		m.block(s)
	}
}

// commonPrefix is the longest beginning all of vs share.
func commonPrefix(vs []string) string {
	p := vs[0]
	for _, v := range vs[1:] {
		for !strings.HasPrefix(v, p) {
			p = p[:len(p)-1]
		}
	}
	for !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	return p
}
