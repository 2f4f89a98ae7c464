package chat

import (
	"fmt"

	"charm.land/lipgloss/v2"
)

// summaryKey expands and collapses the model's summaries of the earlier
// conversation.
const summaryKey = "ctrl+o"

// summaryEntry is the model's summary of the earlier conversation, shown
// collapsed: the messages it stands for stay in the transcript above it.
func summaryEntry(label, text string) *entry {
	return &entry{kind: entrySummary, text: visible(text), label: label}
}

// summaryLabel names what a stored summary covers.
func summaryLabel(through int64) string {
	return fmt.Sprintf("summary of messages 1–%d, written by the model to fit its context window", through)
}

// renderSummary draws a summary: one line collapsed, the text below it
// expanded.
func (e *entry) renderSummary(th *theme, width int) string {
	if !e.expanded {
		return th.note.Render(truncate("▸ "+e.label+" ("+summaryKey+" shows it)", max(width, 10)))
	}
	head := th.note.Render(truncate("▾ "+e.label+" ("+summaryKey+" hides it)", max(width, 10)))
	body := lipgloss.NewStyle().Width(max(width-2, 10)).PaddingLeft(2).Render(e.text)
	return head + "\n" + body
}

// toggleSummaries expands every summary when one is collapsed, else
// collapses them all; it reports whether there was any.
func (m *model) toggleSummaries() bool {
	expand, any := false, false
	for _, e := range m.entries {
		if e.kind == entrySummary {
			any = true
			expand = expand || !e.expanded
		}
	}
	for _, e := range m.entries {
		if e.kind == entrySummary {
			e.expanded, e.viewWidth = expand, 0
		}
	}
	return any
}
