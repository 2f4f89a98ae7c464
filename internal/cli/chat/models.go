package chat

import (
	"fmt"
	"slices"
	"strings"
)

// ModelLister is a [Backend] that can list the models the user may choose
// for a turn (/model). A backend without it offers no model picker.
type ModelLister interface {
	// Models returns the configured models the user may use, in order.
	Models() []string
}

// pickModel handles /model: without an argument it lists the models, each
// marked when chosen; with a name it chooses that model for the next
// turns (shown in the status line); "-" goes back to the agent's model.
func (m *model) pickModel(arg string) {
	ml, ok := m.b.(ModelLister)
	if !ok {
		m.errorNote("this chat cannot choose models; set one with --model")
		return
	}
	models := ml.Models()
	switch arg = strings.TrimSpace(arg); {
	case arg == "":
		if len(models) == 0 {
			m.note("no models are configured")
			return
		}
		rows := make([][]string, 0, len(models))
		for _, name := range models {
			mark := ""
			if name == m.opts.Model {
				mark = "✓"
			}
			rows = append(rows, []string{mark, name})
		}
		m.block(table([]string{"", "MODEL"}, rows, m.width) + "\n/model NAME chooses one; /model - goes back to the agent's model")
	case arg == "-":
		m.opts.Model = ""
		m.note("model: the agent's own")
	case slices.Contains(models, arg):
		m.opts.Model = arg
		m.note("model: " + arg)
	default:
		m.errorNote(fmt.Sprintf("no model %q you may use; /model lists them", truncate(oneLine(arg), 40)))
	}
}
