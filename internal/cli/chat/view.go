package chat

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View draws the transcript, the status or approval line, and the input.
func (m *model) View() tea.View {
	if m.quitting {
		return tea.NewView("")
	}
	var b strings.Builder
	b.WriteString(m.vp.View())
	b.WriteString("\n")
	b.WriteString(m.status())
	b.WriteString("\n")
	b.WriteString(m.input.View())
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}

// status is the line (or two) between transcript and input.
func (m *model) status() string {
	if p := m.approvalPrompt(); p != "" {
		return p
	}
	var parts []string
	if m.turn != nil {
		if m.turn.cancelled {
			parts = append(parts, m.spin.View()+" cancelling")
		} else {
			parts = append(parts, m.spin.View()+" working · ctrl+c cancels")
		}
	}
	who := agentName(m.opts.Agent)
	if m.opts.Model != "" {
		who += " · " + m.opts.Model
	}
	parts = append(parts, who, "conversation "+m.conv)
	if m.quitArmed {
		parts = append(parts, "ctrl+c again quits")
	}
	return m.th.dim.Render(truncate(strings.Join(parts, " · "), max(m.width, 20)))
}

// statusHeight is how many lines status takes.
func (m *model) statusHeight() int {
	if m.elicit != nil {
		return strings.Count(m.elicitPrompt(), "\n") + 1
	}
	if len(m.approvals) > 0 {
		return 2
	}
	return 1
}

// refresh rebuilds the transcript in the viewport, following the end
// when the user had not scrolled up.
func (m *model) refresh() {
	follow := m.vp.AtBottom() || m.vp.TotalLineCount() <= m.vp.Height()
	m.layout()
	spin := m.spin.View()
	var b strings.Builder
	b.Grow(len(m.content) + 256)
	for i, e := range m.entries {
		if e.kind == entryAnswer && e != m.answer {
			m.renderEntry(e)
		}
		if i > 0 {
			// Consecutive tool lines and notes stay together.
			b.WriteString("\n")
			if !compact(m.entries[i-1].kind) || !compact(e.kind) {
				b.WriteString("\n")
			}
		}
		live := e == m.answer || e.kind == entryTool && !e.finished
		b.WriteString(e.draw(&m.th, spin, m.width, live))
	}
	// Setting the content measures every line; most messages (keys,
	// status spinner frames) leave the transcript as it was.
	if s := b.String(); s != m.content {
		m.content = s
		m.vp.SetContent(s)
	}
	if follow {
		m.vp.GotoBottom()
	}
}

// compact reports whether entries of kind k sit on adjacent lines.
func compact(k entryKind) bool { return k == entryTool || k == entryNote }
