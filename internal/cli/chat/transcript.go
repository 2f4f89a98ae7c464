package chat

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// entryKind says what an [entry] of the transcript shows.
type entryKind int

const (
	entryUser    entryKind = iota // the user's message
	entryAnswer                   // an agent's answer, markdown
	entryTool                     // one tool call
	entryNote                     // a one-line notice: router, handoff, approval
	entryError                    // a failure or limit
	entryBlock                    // command output, shown as it is
	entrySummary                  // the model's summary of earlier turns, collapsible
)

// entry is one item of the transcript.
type entry struct {
	kind  entryKind
	agent string
	// text is the raw text: the user's message, the answer's markdown,
	// the notice or the block.
	text string
	// rendered is the answer's markdown as last rendered; dirty says text
	// changed since.
	rendered string
	dirty    bool
	// stable is the rendering of text[:stableLen], the blocks of a
	// streaming answer that are complete (see markdown.renderStreaming).
	stable    string
	stableLen int

	// view is the entry as last drawn at width viewWidth (0: not drawn);
	// entries that can no longer change are drawn once per width.
	view      string
	viewWidth int

	// vis holds back a character split between two pieces of a
	// streaming answer (see visible.go).
	vis visibleStream

	// Summaries only: what it covers, and whether it is shown whole.
	label    string
	expanded bool

	// Tool calls only.
	call     *agent.CallInfo
	started  time.Time
	finished bool
	ok       bool
	outcome  string
	dur      time.Duration
	progress string
}

// Styles of the transcript. They are values, not package state: lipgloss
// styles are immutable.
type theme struct {
	user, agent, note, errs, ok, fail, dim, warn lipgloss.Style
}

func newTheme() theme {
	return theme{
		user:  lipgloss.NewStyle().Bold(true),
		agent: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6")),
		note:  lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		errs:  lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		ok:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		fail:  lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		dim:   lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		warn:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3")),
	}
}

// draw returns e drawn at width, from the cache when e cannot have
// changed; live (a running call, the streaming answer) is never cached.
func (e *entry) draw(th *theme, spin string, width int, live bool) string {
	if !live && e.viewWidth == width {
		return e.view
	}
	v := e.render(th, spin, width)
	if !live {
		e.view, e.viewWidth = v, width
	}
	return v
}

// render draws e; spin is the spinner's current frame for running calls.
func (e *entry) render(th *theme, spin string, width int) string {
	switch e.kind {
	case entryUser:
		return th.user.Render("› ") + e.text
	case entryAnswer:
		body := e.rendered
		if e.agent != "" {
			body = th.agent.Render(agentName(e.agent)) + "\n" + body
		}
		return body
	case entryTool:
		return e.toolLine(th, spin, width)
	case entryNote:
		return th.note.Render(truncate(e.text, max(width, 10)))
	case entryError:
		return th.errs.Render("✗ " + e.text)
	case entrySummary:
		return e.renderSummary(th, width)
	}
	return e.text
}

// toolLine is "⠋ name args" while the call runs and "✓ name args  12ms"
// (or ✗ with the outcome) when it has ended.
func (e *entry) toolLine(th *theme, spin string, width int) string {
	label := truncate(callLabel(e.call), max(width-16, 10))
	if !e.finished {
		line := spin + " " + label
		if e.progress != "" {
			line += "  " + th.dim.Render(e.progress)
		}
		return line
	}
	var d string
	if e.dur > 0 {
		d = "  " + th.dim.Render(duration(e.dur))
	}
	if e.ok {
		return th.ok.Render("✓") + " " + label + d
	}
	return th.fail.Render("✗") + " " + label + d + "\n  " + th.dim.Render(truncate(e.outcome, max(width-2, 10)))
}

// historyEntries turns a stored conversation into transcript entries:
// messages as they were, tool calls as finished lines.
func historyEntries(msgs []store.Message) []*entry {
	var out []*entry
	calls := map[string]*entry{}
	for _, m := range msgs {
		switch {
		case m.SummaryOf > 0:
			out = append(out, summaryEntry(summaryLabel(m.SummaryOf), m.Text()))
			continue
		}
		switch m.Role {
		case llm.RoleUser:
			// Attached resources are parts marked with their URI: named,
			// not shown whole.
			var t strings.Builder
			var uris []string
			for _, p := range m.Content {
				switch {
				case p.URI != "":
					uris = append(uris, p.URI)
				case p.Type == llm.PartText:
					t.WriteString(p.Text)
				}
			}
			if t.Len() > 0 {
				out = append(out, &entry{kind: entryUser, text: visible(t.String())})
			}
			if len(uris) > 0 {
				out = append(out, &entry{kind: entryNote, text: visible("attached " + strings.Join(uris, ", "))})
			}
		case llm.RoleAssistant:
			if t := m.Text(); strings.TrimSpace(t) != "" {
				out = append(out, &entry{kind: entryAnswer, agent: m.Agent, text: visible(t), dirty: true})
			}
			for _, c := range m.ToolCalls {
				e := &entry{kind: entryTool, call: &agent.CallInfo{ID: c.ID, Name: c.Name, Arguments: c.Arguments}, finished: true, ok: true}
				calls[c.ID] = e
				out = append(out, e)
			}
		case llm.RoleTool:
			if e, ok := calls[m.ToolCallID]; ok && m.IsError {
				e.ok, e.outcome = false, truncate(oneLine(m.Text()), 100)
			}
		}
	}
	return out
}
